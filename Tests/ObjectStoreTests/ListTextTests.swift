// A to-many relationship's keys in one cell (ListText.swift): every list of keys written reads back as itself,
// plain keys are written as they always were, and a quote left open is an error, not a guess.

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
}
