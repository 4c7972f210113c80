fn main() -> std::process::ExitCode {
    sqlsuite::trials::run(&["datasets/demo/demo.toml", "datasets/demo/sql2text.toml"])
}
