// Periods without data, shown with zeros: a report of "the last twelve months" has twelve rows even
// when a month had no sales.
//
// It applies to a report grouped by one period (`group: [month(date)]`) and sorted by it first (so
// the gaps are seen between consecutive rows, as the rows stream). With `period: { from: $from,
// to: $to }` every period between the two parameters' dates appears; without it, every period
// between the first and the last that have data. A missing period's row has the period in its
// column, zero in count and sum columns and nothing in the others (an average of nothing is not 0).

import ObjectStore
import ReportRenderers

/// How a report's period gaps are filled.
struct PeriodFill: Sendable {
    /// The period column.
    let column: Int
    let unit: ReportPeriodUnit
    let descending: Bool
    /// The first and last periods to show, in the order shown; nil to start or end with the data.
    let first: ReportPeriod?
    let last: ReportPeriod?
    /// A missing period's row, except for its period cell.
    let template: [ReportCell]
}

/// The rows of `base` with the missing periods inserted.
struct PeriodFilledRows<Base: ReportRowSource>: ReportRowSource {
    var base: Base
    /// nil: the rows of `base` as they are.
    let fill: PeriodFill?
    /// The next period expected in the order shown; nil before the first row when there is no lower bound.
    private var expected: ReportPeriod?
    private var pending: [ReportCell]?
    private var baseDone = false

    init(base: Base, fill: PeriodFill?) {
        self.base = base
        self.fill = fill
        expected = fill?.first
    }

    var rowCount: Int? { fill == nil ? base.rowCount : nil }

    mutating func nextRow() throws -> [ReportCell]? {
        guard let fill else { return try base.nextRow() }
        return try next(fill)
    }

    private mutating func next(_ fill: PeriodFill) throws -> [ReportCell]? {
        func step(_ period: ReportPeriod) -> ReportPeriod { fill.descending ? period.previous : period.next }
        // Whether `a` comes before `b` in the order shown.
        func before(_ a: ReportPeriod, _ b: ReportPeriod) -> Bool { fill.descending ? b < a : a < b }
        func filler(_ period: ReportPeriod) -> [ReportCell] {
            var row = fill.template
            row[fill.column] = period.cell
            return row
        }

        if pending == nil, !baseDone {
            pending = try base.nextRow()
            if pending == nil { baseDone = true }
        }
        if let row = pending {
            guard let period = ReportPeriod(unit: fill.unit, cell: row[fill.column]) else {
                // A group without a date sorts first in ascending order (SQLite's NULLs come first) and is shown as it
                // comes; in descending order it comes last, after the periods still to fill.
                if fill.descending, let expected, let last = fill.last, !before(last, expected) {
                    self.expected = step(expected)
                    return filler(expected)
                }
                pending = nil
                return row
            }
            if let expected, before(expected, period) {
                self.expected = step(expected)
                return filler(expected)
            }
            pending = nil
            if let expected, before(period, expected) {
                return row          // outside the bounds: shown, and the bounds kept
            }
            expected = step(period)
            return row
        }
        if let expected, let last = fill.last, !before(last, expected) {
            self.expected = step(expected)
            return filler(expected)
        }
        return nil
    }
}

extension PeriodFill {
    /// The fill for a report grouped by one period and sorted by it first; nil for other reports. Throws
    /// when the definition's `period:` cannot apply.
    static func make(definition: ReportDefinition, plan: FetchPlan, decoders: [CellDecoder],
                     values: [(ParameterDefinition, ParameterValue)]) throws -> PeriodFill? {
        let declared = definition.period
        func refuse(_ message: String) -> DefinitionError {
            DefinitionError(message, at: declared?.place ?? definition.place)
        }
        guard plan.groupKeys.count == 1, case .period(let unit, _) = plan.groupKeys[0],
              let column = plan.columns.firstIndex(where: { $0.expression == plan.groupKeys[0] }),
              let periodUnit = ReportPeriodUnit(rawValue: unit.rawValue) else {
            if declared != nil {
                throw refuse("period: applies to a report grouped by one period (group: [month(date)]) that shows it as a column")
            }
            return nil
        }
        guard let (sortKey, sortExpression) = plan.sortKeys.first, sortExpression == plan.groupKeys[0] else {
            if declared != nil {
                throw refuse("period: needs the report sorted by its period first (sort: \(plan.columns[column].keyPath)), "
                             + "so that the missing periods are found between consecutive rows")
            }
            return nil
        }
        func bound(_ written: Placed<String>?) throws -> ReportPeriod? {
            guard let written else { return nil }
            let name = written.value.hasPrefix("$") ? String(written.value.dropFirst()) : written.value
            let dates = values.filter { $0.0.type.value == .date }
            if let other = values.first(where: { $0.0.name.value == name && $0.0.type.value != .date }) {
                throw DefinitionError("period: \"\(written.value)\" is a \(other.0.type.value) parameter; a period is bounded by dates",
                                      at: written.place)
            }
            guard let (_, value) = dates.first(where: { $0.0.name.value == name }), case .date(let day) = value else {
                let suggestion = Suggestions.closest(to: name, in: dates.map(\.0.name.value))
                throw DefinitionError("period: \"\(written.value)\" names no date parameter\(Suggestions.didYouMean(suggestion.map { "$" + $0 }))"
                                      + " (write $NAME of a parameter declared under params: with type: date)", at: written.place)
            }
            // A bound the predicate does not use bounds nothing: rows would run past it while the header names it.
            guard usedVariables.contains(name) else {
                throw DefinitionError("period: \"\(written.value)\" bounds the period, but where: does not use $\(name), "
                                      + "so rows outside it would show (write, say, date <= $\(name))", at: written.place)
            }
            return ReportPeriod(unit: periodUnit, year: day.year, month: day.month, day: day.day)
        }
        let usedVariables: Set<String> = Set((definition.predicate.map {
            PredicateLexer.tokenize(PredicateSourceText($0.text, origin: PredicateSourceOrigin(name: "where")))
        } ?? []).compactMap { token -> String? in
            if case .variable(let name) = token.kind { return name } else { return nil }
        })
        let from = try bound(declared?.from)
        let to = try bound(declared?.to)
        var template = [ReportCell](repeating: .null, count: plan.columns.count)
        for (i, fetchColumn) in plan.columns.enumerated() {
            guard case .groupAggregate(let op, _, _) = fetchColumn.expression, op == .count || op == .sum else { continue }
            switch decoders[i] {
            case .integer: template[i] = .integer(0)
            case .decimal(let scale): template[i] = .decimal(units: 0, scale: scale)
            case .roundedDecimal(_, let shown): template[i] = .decimal(units: 0, scale: shown)
            case .double: template[i] = .double(0)
            default: break
            }
        }
        return PeriodFill(column: column, unit: periodUnit, descending: !sortKey.ascending,
                          first: sortKey.ascending ? from : to, last: sortKey.ascending ? to : from, template: template)
    }
}
