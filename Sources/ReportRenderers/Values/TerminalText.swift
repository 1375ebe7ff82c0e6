// Text laid out in columns for mail and terminals.
//
// Why this file exists: the text report aligns columns by what a terminal shows, not by bytes or
// Characters: an emoji or a CJK character takes two columns, a combining accent none. Values are
// made single-line first — a line break or tab inside a cell would break the table — and control
// characters (ESC, which could drive the reader's terminal, among them) and bidirectional
// overrides are shown as every other text output shows them, `<U+001B>` (VisibleText; they were `?`).

import FileOutput

enum TerminalText {
    /// What marks a value shortened to fit (plain ASCII).
    static let truncationMarker = "..."

    /// One line: line breaks and tabs become spaces; other control characters and bidirectional
    /// controls become their codes (`<U+001B>`), which count as the columns they print. (A report's title
    /// is written as the `reports` listing writes it, line breaks and tabs coded too: `VisibleText.escaped`.)
    static func singleLine(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            if character.isNewline || character == "\t" {
                result.append(" ")
            } else if character.unicodeScalars.contains(where: isUnsafe) {
                for scalar in character.unicodeScalars {
                    if isUnsafe(scalar) { result += VisibleText.code(scalar) } else { result.unicodeScalars.append(scalar) }
                }
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// What every text output codes (VisibleText): C0 and C1 controls, DEL, every bidirectional control.
    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool { VisibleText.needsEscape(scalar) }

    /// Terminal columns taken by `text`.
    static func width(_ text: String) -> Int {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.count }
        return text.reduce(0) { $0 + width($1) }
    }

    /// Terminal columns taken by one character: 2 for wide (East Asian wide, emoji), 0 for marks.
    static func width(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.value < 0x7F { return 1 }
        if scalars.contains(where: { $0.properties.isEmojiPresentation }) { return 2 }
        if scalars.contains("\u{FE0F}"), first.properties.isEmoji { return 2 }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            break
        }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: return 1
        }
    }

    /// `text` if it fits in `maxWidth` columns, else its beginning followed by `...`. A code (`<U+001B>`) is kept
    /// whole or cut before: seen (attack 27, finding 13), `Ac<U+001B>[2Jme` was shown as `Ac<U+001...`.
    static func truncated(_ text: String, toWidth maxWidth: Int) -> String {
        guard width(text) > maxWidth else { return text }
        let marker = truncationMarker
        let room = maxWidth - marker.count
        guard room > 0 else { return String(marker.prefix(max(maxWidth, 0))) }
        var result = ""
        var used = 0
        var i = text.startIndex
        while i < text.endIndex {
            if let length = VisibleText.codeLength(at: i, in: text) {
                if used + length > room { break }
                let end = text.index(i, offsetBy: length)
                result += text[i..<end]
                used += length
                i = end
                continue
            }
            let w = width(text[i])
            if used + w > room { break }
            result.append(text[i])
            used += w
            i = text.index(after: i)
        }
        return result + marker
    }

    /// `truncated` for a value held as bytes, without making a String, where that is plain: how many of its bytes
    /// `truncated(_:toWidth:)` keeps before the marker when every byte is printable ASCII (a column a byte, a
    /// character a byte) and no `<` (which may begin a code, kept whole) comes before the cut; nil otherwise (the
    /// value fits, or it must go through `truncated`).
    static func truncatedASCIIPrefix(_ bytes: UnsafeBufferPointer<UInt8>, toWidth maxWidth: Int) -> Int? {
        let room = maxWidth - truncationMarker.utf8.count
        guard room > 0, bytes.count > maxWidth else { return nil }
        for byte in bytes where !(byte >= 0x20 && byte < 0x7F) { return nil }
        for k in 0..<room where bytes[k] == UInt8(ascii: "<") { return nil }
        return room
    }

    /// `text` padded with spaces to `targetWidth` columns, on the right (left-aligned) or the left.
    static func padded(_ text: String, toWidth targetWidth: Int, rightAligned: Bool) -> String {
        let missing = targetWidth - width(text)
        guard missing > 0 else { return text }
        let spaces = String(repeating: " ", count: missing)
        return rightAligned ? spaces + text : text + spaces
    }
}
