fn main() -> std::process::ExitCode {
    sqlsuite::harness::run(&["datasets/demo/demo.toml", "datasets/demo/sql2text.toml"])
}
