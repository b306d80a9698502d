import PackagePlugin

/// Compiles a Swift block of README.md as the `main.swift` of the target
/// that uses this plugin: the target `readme-example-NAME` gets the block
/// marked `<!-- example NAME -->`. A README edit rebuilds the examples, and
/// an example that stops compiling fails the build at the README's line.
@main
struct ReadmeExamples: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let prefix = "readme-example-"
        guard target.name.hasPrefix(prefix) else {
            throw PluginError(description: "ReadmeExamples: the target \(target.name) is not named \(prefix)NAME")
        }
        let name = String(target.name.dropFirst(prefix.count))
        let readme = context.package.directoryURL.appending(path: "README.md")
        let output = context.pluginWorkDirectoryURL.appending(path: "main.swift")
        return [
            .buildCommand(
                displayName: "Extracting the README's example \(name)",
                executable: try context.tool(named: "readme-example-extract").url,
                arguments: ["write", readme.path, name, output.path],
                inputFiles: [readme],
                outputFiles: [output]
            )
        ]
    }
}

struct PluginError: Error, CustomStringConvertible {
    var description: String
}
