// The line where each record was first given, for messages about a key given again.

/// Lines by row ID, compactly: rows inserted by this import have consecutive IDs, so their lines are an array
/// (4 bytes a record, where a dictionary took about 40); rows that existed before go to a dictionary.
struct LineBook {
    var base: Int64 = .max
    var lines: [Int32] = []
    var others: [Int64: Int32] = [:]

    init(firstNewRowID: Int64 = .max) {
        base = firstNewRowID
    }

    subscript(id: Int64) -> Int32? {
        get {
            if id >= base {
                let i = Int(id - base)
                return i < lines.count && lines[i] != 0 ? lines[i] : nil
            }
            return others[id]
        }
        set {
            if id >= base {
                let i = Int(id - base)
                if i >= lines.count { lines.append(contentsOf: repeatElement(0, count: i + 1 - lines.count)) }
                lines[i] = newValue ?? 0
            } else {
                others[id] = newValue
            }
        }
    }
}
