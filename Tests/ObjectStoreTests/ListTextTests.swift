// A to-many relationship's keys in one cell (ListText.swift): every list of keys written reads back as itself,
// plain keys are written as they always were, and a quote left open is an error, not a guess.

import Foundation
import ObjectStore
import TestSupport
import XCTest

final class ListTextTests: XCTestCase {
    func testPlainKeysAreWrittenAsBefore() {
        XCTAssertEqual(ListText.join(["a", "b c", "Zoë", "007"]), "a, b c, Zoë, 007")
        XCTAssertEqual(ListText.join([]), "")
        XCTAssertEqual(ListText.join(["x, y", " lead", "trail ", "say \"hi\"", "line\nfeed", ""]),
                       "\"x, y\", \" lead\", \"trail \", \"say \"\"hi\"\"\", \"line\nfeed\", \"\"")
    }

    func testBothFormsAreRead() throws {
        XCTAssertEqual(try ListText.split("a,b , c,,"), ["a", "b", "c"])
        XCTAssertEqual(try ListText.split("  "), [])
        XCTAssertEqual(try ListText.split("\"x, y\" , z"), ["x, y", "z"])
        XCTAssertEqual(try ListText.split("a \"b\" c, d"), ["a \"b\" c", "d"], "a quote inside a plain key is part of it")
        XCTAssertEqual(try ListText.split("\"\"\"\", \"\""), ["\"", ""])
        XCTAssertEqual(try ListText.split("a; \"b; c\"", separator: ";"), ["a", "b; c"])
    }

    func testAnOpenQuoteOrTextAfterAClosingQuoteIsAnError() {
        XCTAssertThrowsError(try ListText.split("\"x, y")) { error in
            XCTAssertEqual((error as? ListText.Malformed)?.message, "\"\"x, y\" is not a list of keys: the quote that opens item 1 (at character 1) "
                           + "is not closed — an item in quotes ends with a quote, and a quote inside it is written twice (\"\")")
        }
        XCTAssertThrowsError(try ListText.split("a, \"b\"c")) { error in
            XCTAssertEqual((error as? ListText.Malformed)?.reason, "text follows the quote that closes item 2 (at character 7) "
                           + "— put the whole item in quotes, and write a quote inside it twice (\"\")")
        }
    }

    /// Random keys of awkward pieces: joined, then split, they are the same keys.
    func testEveryListOfKeysReadsBackAsItself() throws {
        let pieces = ["a", "Zoë", " ", "\"", "\"\"", ",", ";", "\t", "\n", "\r\n", "\u{A0}", "\u{301}", "😀", "x\"y", "NULL", "'", "\\"]
        let seed = Trials.seed("BOOKKEEPER_LIST_SEED", fixed: 25)
        let rounds = Trials.count("BOOKKEEPER_LIST_ROUNDS", quick: 2_000, stress: 2_000)
        var random = SeededGenerator(seed: seed)
        for round in 0..<rounds {
            let items = (0..<random.next(upTo: 5)).map { _ in (0..<random.next(upTo: 5)).map { _ in random.pick(pieces) }.joined() }
            for separator: Character in [",", ";"] {
                let text = ListText.join(items, separator: separator)
                XCTAssertEqual(try ListText.split(text, separator: separator), items, "round \(round) (seed \(seed)): \(text.debugDescription)")
            }
        }
        reportTrials("list keys", "\(rounds) random lists of keys (seed \(seed)): each read back as written")
    }

    /// A to-many column's value (`bk_list` and the evaluator: StoredValue+List.swift) gives back every item, of every
    /// storage class, as stored — text holding the separator, backslashes or controls included — and a list sorts
    /// before a longer one it begins (`retail` before `retail, slow payer`, a grouped fetch's order of groups).
    func testAToManyColumnsStoredItemsReadBackAsStored() throws {
        let pieces = ["a", "Zoë", " ", "\"", ",", "\t", "\n", "\u{1F}", "\u{1}", "\\", "\\u", "u", "😀", "\u{301}", "i1", "r", "x0"]
        let seed = Trials.seed("BOOKKEEPER_LIST_SEED", fixed: 25)
        let rounds = Trials.count("BOOKKEEPER_STORED_LIST_ROUNDS", quick: 2_000, stress: 2_000)
        var random = SeededGenerator(seed: seed)
        func item() -> StoredValue {
            switch random.next(upTo: 5) {
            case 0: return .integer(Int64(bitPattern: random.next()))
            case 1: return .real(random.pick([0.1, -0.0, 1e308, Double.leastNonzeroMagnitude, 1.7976931348623157e308, Double(Int64(bitPattern: random.next()))]))
            case 2: return .blob(Data((0..<random.next(upTo: 4)).map { _ in UInt8(random.next(upTo: 256)) }))
            default: return .text((0..<random.next(upTo: 5)).map { _ in random.pick(pieces) }.joined())
            }
        }
        for round in 0..<rounds {
            let items = (0..<1 + random.next(upTo: 4)).map { _ in item() }
            let text = StoredValue.listText(items + [.null])
            XCTAssertEqual(StoredValue.listItems(text), items, "round \(round) (seed \(seed)): \(text.debugDescription)")
            XCTAssertLessThan(StoredValue.listText(Array(items.prefix(1))), StoredValue.listText(items.prefix(1) + [.text("")]))
        }
        XCTAssertLessThan(StoredValue.listText([.text("retail")]), StoredValue.listText([.text("retail"), .text("slow payer")]))
        XCTAssertNil(StoredValue.listItems("vip, wholesale"), "the old joined text is no such list")
        reportTrials("stored list items", "\(rounds) random lists of stored values (seed \(seed)): each read back as stored")
    }
}
