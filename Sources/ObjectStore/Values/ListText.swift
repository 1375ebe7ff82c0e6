// A to-many relationship's keys in one cell or argument: `vip, wholesale`.
//
// Why this file exists: `export` joined the keys with ", " and `import` split at every comma and trimmed the
// items, so a key holding a comma (`x, y`) came back as two keys and one with a space at either end was not
// found. Items that need it are quoted as CSV quotes a field — `"x, y", z`, a quote inside written twice
// (`"say ""hi"""`) — and every other item is written as before, so a list of plain keys reads and writes exactly
// as it always has (`a, b, c`). Reading takes both forms: spaces around an item and around the separator are
// not part of it; a plain item is what lies between two separators, trimmed; an item that begins with a quote
// runs to its closing quote, and only spaces may follow it before the separator.

import Foundation
import ValueText

package enum ListText {
    /// Why a list cannot be read: an item's quote is not closed, or text follows a closing quote.
    package struct Malformed: Error, Sendable, Equatable {
        /// The whole list as given.
        package let text: String
        package let reason: String

        /// `"\"x, y" is not a list of keys: the quote that opens item 1 is not closed (…)`
        package var message: String { "\"\(text)\" is not a list of keys: \(reason)" }
    }

    /// The spaces trimmed around a plain item (as import has always trimmed them), and line breaks.
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        CharacterSet.whitespacesAndNewlines.contains(scalar)
    }

    /// The items, joined with `separator` and a space; each quoted when it would not read back as itself.
    package static func join(_ items: [String], separator: Character = ",") -> String {
        items.map { quotedIfNeeded($0, separator: separator) }.joined(separator: String(separator) + " ")
    }

    /// `item` as written in a list: as it is, or in quotes when it is empty, holds the separator, a quote or a line
    /// break, or begins or ends with a space.
    package static func quotedIfNeeded(_ item: String, separator: Character = ",") -> String {
        // One rule for every list bookkeeper writes (ValueText's PlainText.listItem: `fetch`, reports, `show`).
        precondition(separator.unicodeScalars.count == 1, "a list separator is one character")
        return PlainText.listItem(item, separator: separator.unicodeScalars.first!)
    }

    /// The items of `text`, in order. Empty plain items (`a,,b`, a separator at the end) are left out; a quoted
    /// empty item (`""`) is an item.
    package static func split(_ text: String, separator: Character = ",") throws(Malformed) -> [String] {
        let scalars = Array(text.unicodeScalars)
        let sep = Array(separator.unicodeScalars)
        func isSeparator(at i: Int) -> Bool {
            guard i + sep.count <= scalars.count else { return false }
            for k in 0..<sep.count where scalars[i + k] != sep[k] { return false }
            return true
        }
        var items: [String] = []
        var i = 0
        let n = scalars.count
        while i <= n {
            while i < n, isSpace(scalars[i]) && !isSeparator(at: i) { i += 1 }
            if i < n, scalars[i] == "\"" {
                let opening = i
                var item = String.UnicodeScalarView()
                i += 1
                var closed = false
                while i < n {
                    if scalars[i] == "\"" {
                        if i + 1 < n, scalars[i + 1] == "\"" {
                            item.append("\"")
                            i += 2
                            continue
                        }
                        closed = true
                        i += 1
                        break
                    }
                    item.append(scalars[i])
                    i += 1
                }
                guard closed else {
                    throw Malformed(text: text, reason: "the quote that opens item \(items.count + 1) (at character \(opening + 1)) "
                                    + "is not closed — an item in quotes ends with a quote, and a quote inside it is written twice (\"\")")
                }
                while i < n, isSpace(scalars[i]) && !isSeparator(at: i) { i += 1 }
                if i < n && !isSeparator(at: i) {
                    throw Malformed(text: text, reason: "text follows the quote that closes item \(items.count + 1) (at character \(i + 1)) "
                                    + "— put the whole item in quotes, and write a quote inside it twice (\"\")")
                }
                items.append(String(item))
            } else {
                var end = i
                while end < n && !isSeparator(at: end) { end += 1 }
                var last = end
                while last > i && isSpace(scalars[last - 1]) { last -= 1 }
                if last > i {
                    var item = String.UnicodeScalarView()
                    item.append(contentsOf: scalars[i..<last])
                    items.append(String(item))
                }
                i = end
            }
            // At a separator (or the end).
            if i >= n { break }
            i += sep.count
            if i == n { break }
        }
        return items
    }
}
