/// A type is encoded as its identifier, one string, and decoded from it:
/// declared and dynamic identifiers resolve as ``UTType/init(_:)`` does,
/// an unknown one keeps its identity without a declaration.
extension UTType: Codable {
    public init(from decoder: any Decoder) throws {
        let identifier = try decoder.singleValueContainer().decode(String.self)
        self.init(identifier: identifier)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(identifier)
    }
}
