/// A stored object's identity, printed and accepted as `Entity/N` (`Customer/17`).
public struct ObjectID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let entity: String
    public let rowID: Int64

    public init(entity: String, rowID: Int64) {
        self.entity = entity
        self.rowID = rowID
    }

    /// Parses `Entity/N` with N a positive integer; nil for anything else.
    public init?(_ text: String) {
        guard let slash = text.lastIndex(of: "/") else { return nil }
        let name = String(text[..<slash])
        guard Model.isIdentifier(name), let n = Int64(text[text.index(after: slash)...]), n > 0 else { return nil }
        self.init(entity: name, rowID: n)
    }

    public var description: String { "\(entity)/\(rowID)" }

    public static func < (a: ObjectID, b: ObjectID) -> Bool { (a.entity, a.rowID) < (b.entity, b.rowID) }
}
