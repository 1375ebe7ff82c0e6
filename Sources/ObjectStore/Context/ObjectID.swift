/// A stored object's identity, printed and accepted as `Entity/N` (`Customer/17`).
public struct ObjectID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The entity's name.
    public let entity: String
    /// The object's number within its entity, from 1, never reused.
    public let rowID: Int64

    /// The ID of object `rowID` of `entity` (`Customer/17`).
    public init(entity: String, rowID: Int64) {
        self.entity = entity
        self.rowID = rowID
    }

    /// Parses `Entity/N` with N a positive integer written as IDs are printed; nil for anything else. `Customer/01`
    /// and `Customer/+1` are not IDs (they were Customer/1: `delete Tag Tag/001` deleted Tag/1; found by the attack on
    /// 0.7.0): an ID has one spelling, so such a text is only ever a key.
    public init?(_ text: String) {
        guard let slash = text.lastIndex(of: "/") else { return nil }
        let name = String(text[..<slash])
        let digits = text[text.index(after: slash)...]
        guard ObjectModel.isIdentifier(name), let n = Int64(digits), n > 0, String(n) == digits else { return nil }
        self.init(entity: name, rowID: n)
    }

    public var description: String { "\(entity)/\(rowID)" }

    public static func < (a: ObjectID, b: ObjectID) -> Bool { (a.entity, a.rowID) < (b.entity, b.rowID) }
}
