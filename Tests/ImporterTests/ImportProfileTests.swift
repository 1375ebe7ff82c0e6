import XCTest
import ObjectStore
@testable import Importer

/// YAML profiles: every option, read as written, errors with line and column, the command line on top.
final class ImportProfileTests: XCTestCase {
    func testEveryOption() throws {
        let o = try ImportProfile.parse("""
            entity: Order
            key: number
            map:
              Kunde: customer.code
              Nr: number
            ignore-unknown: yes
            create-missing: true
            delimiter: ";"
            encoding: windows-1252
            date-format: "%d.%m.%Y"
            decimal-comma: yes
            null: [NULL, "-"]
            list-separator: "|"
            on-error: skip
            rejects: bad.csv
            dry-run: no
            quiet: yes
            summary: json
            columns: [Nr, Kunde]
            """, file: "p.yaml")
        XCTAssertEqual(o.entity, "Order")
        XCTAssertEqual(o.key, "number")
        XCTAssertEqual(o.map, ["Kunde": "customer.code", "Nr": "number"])
        XCTAssertEqual(o.mapOrder, ["Kunde", "Nr"])
        XCTAssertEqual(o.ignoreUnknown, true)
        XCTAssertEqual(o.createMissing, true)
        XCTAssertEqual(o.delimiter, ";")
        XCTAssertEqual(o.encoding, "windows-1252")
        XCTAssertEqual(o.dateFormat, "%d.%m.%Y")
        XCTAssertEqual(o.decimalComma, true)
        XCTAssertEqual(o.nullTokens, ["NULL", "-"], "NULL is the text NULL, not YAML's null")
        XCTAssertEqual(o.listSeparator, "|")
        XCTAssertEqual(o.onError, .skip)
        XCTAssertEqual(o.rejects, "bad.csv")
        XCTAssertEqual(o.dryRun, false)
        XCTAssertEqual(o.quiet, true)
        XCTAssertEqual(o.summary, .json)
        XCTAssertEqual(o.columns, ["Nr", "Kunde"])
    }

    func error(_ text: String) -> ImportOptionError? {
        do { _ = try ImportProfile.parse(text, file: "p.yaml"); return nil } catch { return error }
    }

    func testMistakesNameTheirPlaceAndAreConfigurationErrors() {
        XCTAssertEqual(error("entity: Order\ndelimeter: \";\"\n")?.description, "p.yaml:2:1: unknown option \"delimeter\" — did you mean \"delimiter\"?")
        XCTAssertEqual(error("entity: Order\ndelimeter: \";\"\n")?.category, .configuration)
        XCTAssertEqual(error("decimal-comma: sometimes")?.description, "p.yaml:1:16: decimal-comma is yes or no, not \"sometimes\"")
        XCTAssertEqual(error("on-error: ignore")?.description, "p.yaml:1:11: on-error is abort or skip, not \"ignore\"")
        XCTAssertEqual(error("map: [a, b]")?.description, "p.yaml:1:6: map is a mapping of CSV column to key path (\"Customer No: customer.code\")")
        XCTAssertEqual(error("- a\n- b")?.description, "p.yaml:1:1: a profile is a mapping of option names to values")
        XCTAssertTrue(error("map: {a: b\n")?.description.hasPrefix("p.yaml: not valid YAML: ") ?? false)
    }

    func testTheCommandLineOverridesTheProfile() {
        var profile = ImportOptions()
        profile.delimiter = ";"
        profile.dateFormat = "%d.%m.%Y"
        profile.addMap(column: "A", keyPath: "name")
        profile.addMap(column: "B", keyPath: "code")
        profile.nullTokens = ["NULL"]
        var cli = ImportOptions()
        cli.delimiter = ","
        cli.addMap(column: "B", keyPath: "info")
        let m = cli.merged(over: profile)
        XCTAssertEqual(m.delimiter, ",")
        XCTAssertEqual(m.dateFormat, "%d.%m.%Y")
        XCTAssertEqual(m.map, ["A": "name", "B": "info"])
        XCTAssertEqual(m.nullTokens, ["NULL"])
    }

    func testSettingsCheckValues() {
        func settingsError(_ change: (inout ImportOptions) -> Void) -> String? {
            var o = ImportOptions()
            change(&o)
            do { _ = try ImportSettings(o, entity: "Order") { _ in .commandLine }; return nil } catch { return error.description }
        }
        XCTAssertEqual(settingsError { $0.delimiter = "::" }, "delimiter \"::\" is not one of auto , ; tab | (or another single ASCII character)")
        let accepted = "auto, utf-8, utf-16 and utf-32 (le, be), windows-1250…1258, iso-8859-1…16, koi8-r, koi8-u, cp866, cp850, mac-roman, shift_jis, euc-jp, gb18030, big5, euc-kr"
        XCTAssertEqual(settingsError { $0.encoding = "ebcdic" }, "encoding \"ebcdic\" is not accepted: EBCDIC is not ASCII-based, so its delimiters and line breaks are not the bytes a CSV reader looks for; accepted: \(accepted)")
        XCTAssertEqual(settingsError { $0.encoding = "ISO-2022-JP" }, "encoding \"ISO-2022-JP\" is not accepted: stateful encodings (ISO-2022-*, UTF-7, HZ) change meaning with escape sequences, so bytes cannot be read on their own; accepted: \(accepted)")
        XCTAssertEqual(settingsError { $0.encoding = "cp1251//TRANSLIT" }, "encoding \"cp1251//TRANSLIT\" is not accepted: iconv's //IGNORE and //TRANSLIT are not accepted: a character that does not fit is an error, never dropped or replaced; accepted: \(accepted)")
        XCTAssertEqual(settingsError { $0.encoding = "windows-1215" }, "unknown encoding \"windows-1215\" — did you mean \"windows-1251\"?; accepted: \(accepted)")
        XCTAssertNil(settingsError { $0.encoding = "KOI8-R" })
        XCTAssertEqual(settingsError { $0.dateFormat = "%d/%m" }, "date format \"%d/%m\": needs a year, a month and a day (%Y or %y, %m or %b, %d)")
        XCTAssertEqual(settingsError { $0.listSeparator = ", " }, "list separator \", \" must be one character")
        XCTAssertEqual(settingsError { $0.rejects = "r.csv" }, "--rejects needs --on-error skip (with abort, nothing is imported and nothing rejected)")
        XCTAssertNil(settingsError { $0.rejects = "r.csv"; $0.onError = .skip })
    }

    func testShippedSampleProfilesParse() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("SampleData")
        for name in ["tags", "services", "customers", "orders"] {
            let o = try ImportProfile.load(path: dir.appendingPathComponent("\(name).yaml").path)
            XCTAssertNotNil(o.entity, name)
            XCTAssertFalse(o.map.isEmpty, name)
        }
    }
}
