fn main() -> std::process::ExitCode {
    sqlsuite::harness::run(&["datasets/sparc.toml"])
}
