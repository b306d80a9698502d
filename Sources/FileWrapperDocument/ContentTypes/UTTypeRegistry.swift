import FileWrapperKit

/// Every declaration the process knows: the system types, fixed, and the
/// types the program registered, behind a lock so that any thread may
/// register and look up at once.
final class UTTypeRegistry: Sendable {
    static let shared = UTTypeRegistry()

    private struct Registered {
        /// Exported declarations by key; they win over imported ones.
        var exported: [String: UTTypeDeclaration] = [:]
        var imported: [String: UTTypeDeclaration] = [:]
    }

    private let system: [String: UTTypeDeclaration]
    private let registered = Locked(Registered())

    private init() {
        system = Dictionary(SystemTypeDeclarations.all.map { ($0.identifier.lowercased(), $0) }) { first, _ in first }
    }

    /// The declaration of the type whose lowercased identifier is `key`:
    /// the system's (a program cannot redeclare a system type), else an
    /// exported one, else an imported one.
    func declaration(forKey key: String) -> UTTypeDeclaration? {
        if let declaration = system[key] { return declaration }
        return registered.withLock { $0.exported[key] ?? $0.imported[key] }
    }

    /// The declarations that have `tag` (normalized) of `tagClass`: the
    /// registered exported ones, then the system's, then the imported ones,
    /// each group in identifier order.
    func declarations(withTag tag: String, of tagClass: UTTagClass) -> [UTTypeDeclaration] {
        func matching(_ declarations: some Sequence<UTTypeDeclaration>) -> [UTTypeDeclaration] {
            declarations
                .filter { $0.tags[tagClass]?.contains { tagClass.normalized($0) == tag } ?? false }
                .sorted { $0.identifier < $1.identifier }
        }
        let (exported, imported) = registered.withLock { registered in
            (Array(registered.exported.values), Array(registered.imported.values))
        }
        let systemMatches = matching(system.values)
        let exportedMatches = matching(exported).filter { system[$0.identifier.lowercased()] == nil }
        let exportedKeys = Set(exported.map { $0.identifier.lowercased() })
        let importedMatches = matching(imported).filter {
            system[$0.identifier.lowercased()] == nil && !exportedKeys.contains($0.identifier.lowercased())
        }
        return exportedMatches + systemMatches + importedMatches
    }

    /// Adds `declarations`, replacing earlier ones of the same identifier and kind.
    func register(_ declarations: UTTypeDeclarations) {
        registered.withLock { registered in
            for declaration in declarations.exported {
                registered.exported[declaration.identifier.lowercased()] = declaration
            }
            for declaration in declarations.imported {
                registered.imported[declaration.identifier.lowercased()] = declaration
            }
        }
    }
}
