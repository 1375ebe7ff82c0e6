// Doubles that are not finite numbers, in the store or computed from it.
//
// Why this file exists: bookkeeper never stores an infinity or a NaN (Value.fits refuses them), but another tool
// can: `sqlite3 … "UPDATE Item SET weight = 9e999"` leaves +∞ in a REAL column (SQLite turns a NaN into NULL). Each
// output printed it its own way — `null` in JSON, `Infinity` in a report's text, `inf` from `fetch`, `show` and
// `export`, none of which reads back — and a double total or sum beyond ±1.8e308 came out as 0 or empty. Every
// output now refuses instead, with one message: the object and attribute that hold it, and `check` to find them
// all. An output finds a non-finite value as it reads (one comparison a value); `nonFiniteError` then says where
// it came from.

/// A double the store holds that is not finite: `Item/3.weight: the store holds a non-finite number (inf) …`.
package struct NonFiniteStoredNumber: CategorizedError, Equatable {
    package let object: ObjectID
    package let attribute: String
    package let value: Double

    package init(object: ObjectID, attribute: String, value: Double) {
        self.object = object
        self.attribute = attribute
        self.value = value
    }

    package var category: ErrorCategory { .data }

    /// The store's check lists every such value.
    package var nextStep: NextStep { .runCheck }

    package var description: String {
        "\(object).\(attribute): the store holds a non-finite number (\(NonFiniteStoredNumber.spelling(value))), which no output "
            + "can write — another tool wrote it; set each such value to a number"
    }

    /// How `bk_finite` fails a statement with it (StoreFunctions.swift), for `Store.mapErrors` to read back.
    static func sqlMessage(_ stored: NonFiniteStoredNumber) -> String {
        [sqlMarker, stored.object.entity, String(stored.object.rowID), stored.attribute, spelling(stored.value)]
            .joined(separator: "\u{1F}")
    }

    /// The stored number an SQL error message from `bk_finite` names; nil for any other message.
    static func fromSQL(_ message: String?) -> NonFiniteStoredNumber? {
        guard let parts = message?.split(separator: "\u{1F}", omittingEmptySubsequences: false), parts.count == 5,
              parts[0] == sqlMarker, let rowID = Int64(parts[2]) else { return nil }
        let value: Double = parts[4] == "-inf" ? -.infinity : parts[4] == "inf" ? .infinity : .nan
        return NonFiniteStoredNumber(object: ObjectID(entity: String(parts[1]), rowID: rowID), attribute: String(parts[3]), value: value)
    }

    private static let sqlMarker = "bk_finite"

    /// `inf`, `-inf` or `nan`.
    package static func spelling(_ value: Double) -> String {
        value.isNaN ? "nan" : value < 0 ? "-inf" : "inf"
    }
}

/// A value computed from finite ones that is not finite: a sum, a total or an average whose adding up passed
/// ±1.8e308 (even if the exact sum would not: 1.7e308 + 1.7e308 − 1.7e308).
package struct NonFiniteResult: CategorizedError, Equatable {
    /// Where: `column "Weight"`, `the total of column "Weight"`.
    package let place: String
    /// Prefixed to the message (an output file), or nil.
    package let file: String?

    package init(place: String, file: String? = nil) {
        self.place = place
        self.file = file
    }

    package var category: ErrorCategory { .data }

    package var description: String {
        // Standard output (`-`) is not named: the message is about the data, as `fetch`'s is.
        (file.flatMap { $0 == "-" ? nil : "\($0): " } ?? "") + "\(place) overflows a double (±\(Double.greatestFiniteMagnitude)) "
            + "as its values are added up, and is not written as a number"
    }
}

extension Value {
    /// Whether this is a double that is not a finite number.
    @inline(__always)
    package var isNonFiniteDouble: Bool {
        if case .double(let d) = self { return !d.isFinite }
        return false
    }
}

extension Store {
    /// The first double the store holds that is not finite, in model order (the attributes named `preferring`
    /// first: the one an output was reading); nil when every stored double is finite.
    package func firstNonFiniteDouble(preferring attribute: String? = nil) throws -> NonFiniteStoredNumber? {
        var candidates: [(Entity, EntityAttribute)] = []
        for entity in model.entities {
            for a in entity.attributes where a.type == .double { candidates.append((entity, a)) }
        }
        if let attribute {
            candidates.sort { ($0.1.name == attribute ? 0 : 1) < ($1.1.name == attribute ? 0 : 1) }
        }
        return try read { db in
            for (entity, a) in candidates {
                if let row = try db.rows(StoreSQL(db.dialect).firstNonFinite(entity.name, a.name)).first {
                    return NonFiniteStoredNumber(object: ObjectID(entity: entity.name, rowID: row.int64(0) ?? 0), attribute: a.name,
                                                 value: row[1].double ?? 0)
                }
            }
            return nil
        }
    }

    /// Why an output met a non-finite double in `place` (a column, read by `keyPath`): the stored value it came
    /// from, else a computed value that overflowed.
    package func nonFiniteError(place: String, keyPath: String?, file: String? = nil) throws -> any CategorizedError {
        let last = keyPath.flatMap { $0.split(separator: ".").last.map(String.init) }
        if let stored = try firstNonFiniteDouble(preferring: last) { return stored }
        return NonFiniteResult(place: place, file: file)
    }
}
