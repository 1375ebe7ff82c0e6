// From stored values to report cells, in one step per cell.
//
// Why this file exists: a report reads the SQL results of its fetch plan as stored values (`StoredValue`: decimals
// as integer units at their scale, booleans 0/1, dates as `YYYY-MM-DD` text; docs/model.md "How the store keeps
// it") and turns each into a `ReportCell` through the engine's one decoder, `StoredValue.decoded(as:)`, the same that
// gives `fetch` and the object context their `Value`s — building the cell directly, with no `Value` in between (a
// report has millions of cells) — then rounds it when the column asks (averages at the scale of what they
// average, `format: integer`). A stored value of an unexpected kind (written by another tool) is shown as
// the decoder gives it, as text, rather than dropped.

import Foundation
import ObjectStore
import ReportRenderers

enum CellDecoder: Sendable {
    case text
    case integer
    case decimal(scale: Int)
    case double
    case boolean
    case date
    case dateTime
    case binary
    /// Decimal units at `scale` shown rounded to `shown` decimals (`format: integer` on a decimal).
    case roundedDecimal(scale: Int, shown: Int)
    /// An average (a REAL) shown as a decimal rounded to `shown` decimals.
    case roundedDouble(shown: Int)
    /// A to-many column's items (`tags.name`), each decoded as `item` (`ReportCell(list:itemType:)`) and rounded to
    /// `shown` decimals when not nil, as a column of one such value is (`format: integer` on `tags.dec`).
    case list(item: AttributeType, shown: Int?)

    init(_ type: AttributeType) {
        switch type {
        case .string: self = .text
        case .integer: self = .integer
        case .decimal(let scale): self = .decimal(scale: scale)
        case .double: self = .double
        case .boolean: self = .boolean
        case .date: self = .date
        case .dateTime: self = .dateTime
        case .binary: self = .binary
        }
    }

    /// The attribute type the stored values are decoded as.
    var type: AttributeType {
        switch self {
        case .text: .string
        case .integer: .integer
        case .decimal(let scale), .roundedDecimal(let scale, _): .decimal(scale: scale)
        case .double, .roundedDouble: .double
        case .boolean: .boolean
        case .date: .date
        case .dateTime: .dateTime
        case .binary: .binary
        case .list: .string
        }
    }

    /// The type of a list column's items; nil for the others.
    var listItem: AttributeType? {
        if case .list(let item, _) = self { return item }
        return nil
    }

    /// The decimals a rounding decoder keeps; nil for the others.
    var shown: Int? {
        switch self {
        case .roundedDecimal(_, let shown), .roundedDouble(let shown): shown
        case .list(_, let shown): shown
        default: nil
        }
    }

    /// The cell of a stored value (StoreRowSource does the same with `type` and `shown` worked out per column).
    func cell(_ value: StoredValue) -> ReportCell {
        let cell = listItem.map { ReportCell(list: value, itemType: $0) } ?? value.decoded(as: type)
        return shown.map { cell.rounded(toScale: $0) } ?? cell
    }
}

extension CellDecoder: Equatable {}

/// A report cell straight from a stored value (`StoredValue.decoded(as:)`): the cell `ReportCell(_ value:)` makes of
/// the `Value` the same stored value decodes to.
extension ReportCell: StoredValueDecodable {
    package static func string(_ text: String) -> ReportCell { .text(text) }
    package static func date(_ day: Day) -> ReportCell { .date(year: day.year, month: day.month, day: day.day) }
    package static func dateTime(_ instant: Timestamp) -> ReportCell { .dateTime(secondsSinceEpoch: instant.secondsSinceEpoch) }
    package static func binary(_ bytes: Data) -> ReportCell { .text(Value.binary(bytes).text(in: .utc)) }
}
