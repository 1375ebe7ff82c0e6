// `bookkeeper fetch` writes its values by the renderers' rules (ReportRenderers' CellFormatter), so a
// decimal, date, boolean or null reads the same in a fetch as in a report; here is how a fetched `Value`
// becomes a cell, and which format a column of a value type gets (a report column's default).

import ObjectStore
import ReportRenderers

extension ReportCell {
    /// The cell a report would show for `value`.
    package init(_ value: Value) {
        switch value {
        case .null: self = .null
        case .string(let s): self = .text(s)
        case .integer(let i): self = .integer(i)
        case .decimal(let d): self = .decimal(units: d.units, scale: d.scale)
        case .double(let d): self = .double(d)
        case .boolean(let b): self = .boolean(b)
        case .date(let d): self = .date(year: d.year, month: d.month, day: d.day)
        case .dateTime(let t): self = .dateTime(secondsSinceEpoch: t.secondsSinceEpoch)
        case .binary: self = .text(value.text(in: .utc))
        }
    }
}

extension ReportCell {
    /// The cell of a to-many column's value (`FetchColumn.listItemType`): its items, each the cell a value of
    /// `itemType` stored so is (`StoredValue.decoded(as:)`), in a list; no items (NULL) is an empty list. A text
    /// that is no such list (another tool's) is shown as it is.
    package init(list value: StoredValue, itemType: AttributeType) {
        switch value {
        case .null: self = .list([])
        case .text(let text):
            if let items = StoredValue.listItems(text) {
                self = .list(items.map { $0.decoded(as: itemType) })
            } else {
                self = .text(text)
            }
        default: self = value.decoded(as: .string)
        }
    }

    /// The same from the `Value` a fetch gives (`.string` of the list text, or `.null`).
    package init(list value: Value, itemType: AttributeType) {
        switch value {
        case .null: self.init(list: StoredValue.null, itemType: itemType)
        case .string(let text): self.init(list: StoredValue.text(text), itemType: itemType)
        default: self.init(value)
        }
    }
}

extension ColumnFormat {
    /// The format a report column of values of `type` has when its definition names none.
    package init(defaultFor type: AttributeType) {
        self = ColumnFormats.defaultFormat(for: type, isYear: false)
    }
}
