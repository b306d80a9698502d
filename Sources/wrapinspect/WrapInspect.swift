import ArgumentParser

@main
struct WrapInspect: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "wrapinspect", abstract: "Inspect document packages.")
}
