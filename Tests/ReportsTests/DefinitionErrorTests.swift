// Every shape of mistake in a definition file, with its whole message: the file, line and column
// (columns counted in characters, on the line of the file where the mistake is — also inside quoted
// and multi-line values), what is wrong, and a remedy or a did-you-mean. All are bad configuration
// (exit status 78).

import Bookkeeping
import ObjectStore
import Reports
import XCTest

final class DefinitionErrorTests: XCTestCase {
    /// The message of the error loading and checking `yaml` as Reports/x.yaml; fails if there is none.
    private func message(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let definition = try ReportDefinition.parse(yaml, name: "x", file: "Reports/x.yaml")
            try PreparedReport.check(definition, model: BookkeepingModel.model, clock: SampleStore.clock)
            XCTFail("no error", file: file, line: line)
            return ""
        } catch let error as CategorizedError {
            XCTAssertEqual(error.category, .configuration, "\(error)", file: file, line: line)
            return error.description
        } catch {
            XCTFail("not a categorized error: \(error)", file: file, line: line)
            return ""
        }
    }

    func testUnknownKeys() {
        XCTAssertEqual(message("title: X\nentty: Order\ncolumns: [number]\n"),
                       #"Reports/x.yaml:2:1: unknown key "entty" in a report definition — did you mean "entity"?"#)
        XCTAssertEqual(message("entity: Order\nfilter: paid == NO\ncolumns: [number]\n"),
                       #"Reports/x.yaml:2:1: unknown key "filter" in a report definition (a report definition takes title, description, entity, where, params, sort, group, columns, totals, chart, negative, period)"#)
        XCTAssertEqual(message("entity: Order\ncolumns:\n  - { key: number, titel: Number }\n"),
                       #"Reports/x.yaml:3:20: unknown key "titel" in a column — did you mean "title"?"#)
        XCTAssertEqual(message("entity: Order\nparams:\n  until: { type: date, defualt: today }\ncolumns: [number]\n"),
                       #"Reports/x.yaml:3:24: unknown key "defualt" in a parameter — did you mean "default"?"#)
        XCTAssertEqual(message("entity: Order\ncolumns: [number]\nchart: { kind: pie, categories: Number, values: [Number] }\n"),
                       #"Reports/x.yaml:3:10: unknown key "kind" in chart (chart takes type, title, categories, values)"#)
    }

    func testUnknownNegativeStyle() {
        XCTAssertEqual(message("entity: Order\ncolumns: [number]\nnegative: parenthesis\n"),
                       #"Reports/x.yaml:3:11: unknown negative style "parenthesis" — did you mean "parentheses"? (write minus, red, parentheses)"#)
        XCTAssertEqual(message("entity: Order\ncolumns: [number]\nnegative: [red]\n"),
                       "Reports/x.yaml:3:11: negative takes one value, not a list")
    }

    func testMissingAndRepeatedKeys() {
        XCTAssertEqual(message("title: Nothing\ncolumns: [number]\n"),
                       "Reports/x.yaml:1:1: a report needs an entity to fetch (entity: Order)")
        XCTAssertEqual(message("entity: Order\n"),
                       "Reports/x.yaml:1:1: a report needs columns (columns: [{ key: KEYPATH, title: TITLE }, …])")
        XCTAssertEqual(message("entity: Order\ncolumns:\n  - { title: Number }\n"),
                       "Reports/x.yaml:3:5: a column needs a key: the key path, period or aggregate it shows ({ key: KEYPATH, title: TITLE })")
        XCTAssertEqual(message("entity: Order\nentity: Customer\ncolumns: [number]\n"),
                       #"Reports/x.yaml:2:1: "entity" is given twice (first on line 1)"#)
        XCTAssertEqual(message(""), "Reports/x.yaml: the file is empty; a report needs at least entity and columns")
    }

    func testWrongKindsOfValues() {
        XCTAssertEqual(message("entity: [Order]\ncolumns: [number]\n"), "Reports/x.yaml:1:9: entity takes one value, not a list")
        XCTAssertEqual(message("entity: Order\ncolumns: number\n"),
                       "Reports/x.yaml:2:10: columns takes a list of columns, at least one ({ key: KEYPATH, title: TITLE }), not a single value")
        XCTAssertEqual(message("- entity: Order\n"), "Reports/x.yaml:1:1: a report definition is a mapping of keys to values (key: value), not a list")
        XCTAssertEqual(message("entity: Order\ncolumns:\n  - { key: number, width: wide }\n"),
                       #"Reports/x.yaml:3:27: width is a number of characters from 1 to 255, not "wide""#)
        XCTAssertEqual(message("entity: Order\ncolumns: [number\n"),
                       "Reports/x.yaml:3:1: not valid YAML: did not find expected ',' or ']' (while parsing a flow sequence at line 2)")
    }

    func testBadKeyPathsPointIntoTheFile() {
        XCTAssertEqual(message("entity: Ordr\ncolumns: [number]\n"),
                       #"Reports/x.yaml:1:9: unknown entity "Ordr" — did you mean "Order"?"#)
        XCTAssertEqual(message("entity: Customer\nwhere: nmae == \"Acme\"\ncolumns: [name]\n"),
                       #"Reports/x.yaml:2:8: unknown key "nmae" on Customer — did you mean "name"?"#)
        XCTAssertEqual(message("entity: Order\ncolumns:\n  - { key: date, title: Date }\n  - { key: customer.nmae, title: Customer }\n"),
                       #"Reports/x.yaml:4:21: unknown key "nmae" on Customer — did you mean "name"?"#)
        XCTAssertEqual(message("entity: Order\ncolumns:\n  - { key: \"customer.nmae\", title: Customer }\n"),
                       #"Reports/x.yaml:3:22: unknown key "nmae" on Customer — did you mean "name"?"#, "inside quotes")
        XCTAssertEqual(message("entity: Order\nsort: date, customer.nam desc\ncolumns: [number]\n"),
                       #"Reports/x.yaml:2:22: unknown key "nam" on Customer — did you mean "name"?"#)
        XCTAssertEqual(message("entity: Order\nsort: [date, rows.sum]\ncolumns: [number]\n"),
                       #"Reports/x.yaml:2:14: "rows" is a to-many relationship — sort by an aggregate such as rows.@count"#)
        XCTAssertEqual(message("entity: Order\nsort: date decsending\ncolumns: [number]\n"),
                       #"Reports/x.yaml:2:12: unknown sort option "decsending" (write asc or desc, and binary, nocase or natural)"#)
        XCTAssertEqual(message("entity: Order\ngroup: [customer.name]\ncolumns: [customer.name, number]\n"),
                       #"Reports/x.yaml:3:26: "number" is neither a group key nor an aggregate — add it to the group keys, or aggregate it (count, sum:…, min:…)"#)
        XCTAssertEqual(message("entity: Order\ngroup: [mnth(date)]\ncolumns: [count]\n"),
                       #"Reports/x.yaml:2:9: unknown period "mnth(…)" — did you mean "month"? (the periods are month(KEYPATH), quarter(KEYPATH), week(KEYPATH) and year(KEYPATH))"#)
        XCTAssertEqual(message("entity: Order\ngroup: [customer.name]\ncolumns: [customer.name, \"smu:rows.sum\"]\n"),
                       #"Reports/x.yaml:3:27: unknown aggregate "smu:" — did you mean "sum"? (the aggregates are count, sum:KEYPATH, avg:, min: and max:)"#)
    }

    func testPredicatePositionsInMultiLineValues() {
        // A folded value: the error is on the third line of the file, at "dat" (column 24 of that line).
        let folded = """
            entity: Order
            where: >
              made == YES
                AND paid == NO AND dat <= $until
            params:
              until: { type: date, default: today }
            columns: [number]

            """
        XCTAssertEqual(message(folded), #"Reports/x.yaml:4:24: unknown key "dat" on Order — did you mean "date"?"#)
        let plain = """
            entity: Order
            where: made == YES AND
              paid == NO AND
              rows.@sum.summ > 0
            columns: [number]

            """
        XCTAssertEqual(message(plain), #"Reports/x.yaml:4:13: unknown key "summ" on OrderRow — did you mean "sum"?"#)
        XCTAssertEqual(message("entity: Order\nwhere: made == YES AND paid ==\ncolumns: [number]\n"),
                       #"Reports/x.yaml:2:29: expected a value after "==", found end of input"#)
    }

    /// F3: inside a quoted value, positions were counted as if the value were the file's text, so each escape,
    /// `''` or folded line moved them (`key: "na\nme"` was reported at 4:1 in a 3-line file).
    func testPositionsAfterEscapesInQuotedValuesWereCountedInTheValue() {
        let cases: [(String, String)] = [
            // A line feed escape ends the value's line, not the file's.
            ("entity: Customer\ncolumns:\n  - { key: \"na\\nme\" }\n",
             #"Reports/x.yaml:3:17: expected end of key path after "na", found "me"; a key path is keys joined by dots, as in customer.name"#),
            // Six \u00e9 are six characters of the value and 36 of the file.
            ("entity: Customer\nwhere: \"name == \\\"\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\\" AND nmae == 1\"\ncolumns: [name]\n",
             #"Reports/x.yaml:2:62: unknown key "nmae" on Customer — did you mean "name"?"#),
            ("entity: Customer\nwhere: \"name == \\\"\\t\\t\\\" AND\\n nmae == 1\"\ncolumns: [name]\n",
             #"Reports/x.yaml:2:32: unknown key "nmae" on Customer — did you mean "name"?"#),
            // An escaped line break continues the value on the next line, its indentation dropped.
            ("entity: Customer\nwhere: \"name == 'x' AND \\\n  nmae == 1\"\ncolumns: [name]\n",
             #"Reports/x.yaml:3:3: unknown key "nmae" on Customer — did you mean "name"?"#),
            // \x, \U and a literal tab escape.
            ("entity: Customer\nwhere: \"name == '\\x41\\U0001F600\\\t' AND nmae == 1\"\ncolumns: [name]\n",
             #"Reports/x.yaml:2:40: unknown key "nmae" on Customer — did you mean "name"?"#),
            // A line folded to a space, and an empty line kept as a line feed.
            ("entity: Customer\nwhere: \"name == 'x'\n    AND nmae == 1\"\ncolumns: [name]\n",
             #"Reports/x.yaml:3:9: unknown key "nmae" on Customer — did you mean "name"?"#),
            ("entity: Customer\nwhere: \"name == 'x'\n\n    AND nmae == 1\"\ncolumns: [name]\n",
             #"Reports/x.yaml:4:9: unknown key "nmae" on Customer — did you mean "name"?"#),
            // '' is one quote of a single-quoted value.
            ("entity: Customer\nwhere: 'name == ''a'' AND name == ''b'' AND nmae == 1'\ncolumns: [name]\n",
             #"Reports/x.yaml:2:45: unknown key "nmae" on Customer — did you mean "name"?"#),
            ("entity: Customer\nwhere: 'name == ''a''\n  AND nmae == 1'\ncolumns: [name]\n",
             #"Reports/x.yaml:3:7: unknown key "nmae" on Customer — did you mean "name"?"#),
            // Sort keys, group keys and column keys go through the same map.
            ("entity: Order\nsort: \"\\x64ate, customer.nam desc\"\ncolumns: [number]\n",
             #"Reports/x.yaml:2:26: unknown key "nam" on Customer — did you mean "name"?"#),
            ("entity: Order\ngroup: [\"\\x63ustomer.name\", \"mo\\x6eth(dat)\"]\ncolumns: [count]\n",
             #"Reports/x.yaml:2:39: unknown key "dat" on Order — did you mean "date"?"#),
            ("entity: Order\ncolumns:\n  - { key: \"\\u0063ustomer.nmae\" }\n",
             #"Reports/x.yaml:3:27: unknown key "nmae" on Customer — did you mean "name"?"#),
            // At the end of input the error points at the last token, after two escapes.
            ("entity: Order\nwhere: \"\\\"\\\" == \"\ncolumns: [number]\n",
             #"Reports/x.yaml:2:14: expected a value after "==", found end of input"#),
        ]
        for (yaml, expected) in cases { XCTAssertEqual(message(yaml), expected, yaml) }
    }

    func testParameters() {
        XCTAssertEqual(message("entity: Order\nwhere: date <= $unti\nparams:\n  until: { type: date, default: today }\ncolumns: [number]\n"),
                       #"Reports/x.yaml:2:16: unknown parameter $unti — did you mean "until"? (parameters are declared under params:)"#)
        XCTAssertEqual(message("entity: Order\nwhere: date <= $since\ncolumns: [number]\n"),
                       "Reports/x.yaml:2:16: unknown parameter $since (declare it under params:, e.g. since: { type: date, default: today })")
        XCTAssertEqual(message("entity: Order\nwhere: number == $until\nparams:\n  until: { type: date, default: today }\ncolumns: [number]\n"),
                       #"Reports/x.yaml:2:18: $until is a date parameter, but "number" is String (change the type of until at line 4)"#)
        XCTAssertEqual(message("entity: Order\nwhere: rows.@sum.sum > $min\nparams:\n  min: string\ncolumns: [number]\n"),
                       #"Reports/x.yaml:2:24: $min is a string parameter, but "rows.@sum.sum" is Decimal(2) (change the type of min at line 4)"#)
        XCTAssertEqual(message("entity: Order\nparams:\n  until: { type: dat, default: today }\ncolumns: [number]\n"),
                       #"Reports/x.yaml:3:18: unknown parameter type "dat" — did you mean "date"? (write date, string, number, boolean)"#)
        XCTAssertEqual(message("entity: Order\nparams:\n  until: { type: date, default: start of lst month }\ncolumns: [number]\n"),
                       #"Reports/x.yaml:3:33: default of date parameter "until": "start of lst month" is not a date (write YYYY-MM-DD, today, yesterday, start of month, end of last month, start of year, today - 30 days, …) — did you mean "start of last month"?"#)
        XCTAssertEqual(message("entity: Order\nparams:\n  limit: { type: number, default: \"1,000\" }\ncolumns: [number]\n"),
                       #"Reports/x.yaml:3:35: default of number parameter "limit": "1,000" is not a number (write 1234.50: digits, a point, no grouping)"#)
        XCTAssertEqual(message("entity: Order\nparams:\n  until: { default: today }\ncolumns: [number]\n"),
                       "Reports/x.yaml:3:10: parameter \"until\" needs a type (date, string, number, boolean)")
        XCTAssertEqual(message("entity: Order\nparams:\n  the-day: date\ncolumns: [number]\n"),
                       #"Reports/x.yaml:3:3: a parameter name is a word of letters, digits and _ (it is written $the-day in where), not "the-day""#)
        XCTAssertEqual(message("entity: Order\nwhere: number == %@\ncolumns: [number]\n"),
                       "Reports/x.yaml:2:18: %@ and %K are filled from the command line by `fetch --arg`; a report uses parameters instead ($name, declared under params:)")
    }

    func testFormatsTotalsAndCharts() {
        XCTAssertEqual(message("entity: Order\ncolumns:\n  - { key: number, format: mony }\n"),
                       #"Reports/x.yaml:3:28: unknown format "mony" — did you mean "money"? (write text, code, integer, number, money, date, dateTime, boolean, percent)"#)
        XCTAssertEqual(message("entity: Order\ncolumns:\n  - { key: customer.name, title: Customer, format: money }\n"),
                       #"Reports/x.yaml:3:52: format money needs a number, but "customer.name" is String"#)
        XCTAssertEqual(message("entity: Order\ncolumns:\n  - { key: date, format: boolean }\n"),
                       #"Reports/x.yaml:3:26: format boolean needs a boolean, but "date" is Date"#)
        XCTAssertEqual(message("entity: Order\ncolumns:\n  - { key: number, title: X }\n  - { key: date, title: X }\n"),
                       #"Reports/x.yaml:4:25: two columns are titled "X" (the other on line 3); titles name columns in totals and chart, and head the columns of every output"#)
        XCTAssertEqual(message("entity: Order\ncolumns:\n  - { key: number, title: Order }\n  - { key: rows.@sum.sum, title: Total, format: money }\ntotals: [Totl]\n"),
                       #"Reports/x.yaml:5:10: totals names no column "Totl" — did you mean "Total"? (the columns are "Order", "Total")"#)
        XCTAssertEqual(message("entity: Order\ncolumns:\n  - { key: number, title: Order }\ntotals: Order\n"),
                       #"Reports/x.yaml:4:9: totals: "Order" is a text column; only numbers add up"#)
        XCTAssertEqual(message("entity: Order\ngroup: [month(date)]\ncolumns:\n  - { key: month(date), title: Month }\n  - { key: count, title: Orders }\nchart: { type: pi, categories: Month, values: [Orders] }\n"),
                       #"Reports/x.yaml:6:16: unknown chart type "pi" — did you mean "pie"? (write column, bar, line, pie)"#)
        XCTAssertEqual(message("entity: Order\ngroup: [month(date)]\ncolumns:\n  - { key: month(date), title: Month }\n  - { key: count, title: Orders }\nchart: { categories: Month, values: [Month] }\n"),
                       #"Reports/x.yaml:6:38: chart values: "Month" is a text column; a chart draws numbers"#)
        XCTAssertEqual(message("entity: Order\ncolumns: [number]\nchart: { values: [number] }\n"),
                       "Reports/x.yaml:3:8: a chart needs categories: the title of the column along its axis (categories: Month)")
    }

    /// Columns count characters, not bytes or Unicode scalars: "é" before the mistake counts once.
    func testColumnsCountCharacters() {
        XCTAssertEqual(message("title: Café\nentity: Customer\nwhere: name == \"Café\" AND cdoe == \"C1\"\ncolumns: [name]\n"),
                       #"Reports/x.yaml:3:27: unknown key "cdoe" on Customer — did you mean "code"?"#)
    }

    /// The shipped definitions are all sound.
    func testShippedDefinitionsCheck() throws {
        let entries = try ShippedReports.library.entries()
        XCTAssertEqual(entries.count, 6)
        for entry in entries {
            let definition = try ReportDefinition.load(path: entry.path, file: "Reports/\(entry.name).yaml")
            XCTAssertNoThrow(try PreparedReport.check(definition, model: BookkeepingModel.model, clock: SampleStore.clock), entry.name)
        }
    }
}
