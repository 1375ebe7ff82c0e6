import Foundation
import TestSupport
@testable import ObjectStore

/// A store of the test model with values chosen to be awkward: NULLs, accents and case variants, numbers
/// inside names, books with no chapters or no author, equal prices, a many-to-many with empty sides.
enum FetchFixture {
    static let authors: [(String, String?, String?)] = [
        ("Müller", "m@x.org", "1970-05-01"), ("muller", nil, nil), ("MÜLLER", "M@X.ORG", "1980-01-31"),
        ("Straße", "s@x.org", "1965-12-24"), ("STRASSE", nil, "1990-07-04"), ("Item 2", "i2@x.org", nil),
        ("Item 10", "i10@x.org", "2001-09-09"), ("item 1", nil, "2001-09-09"), ("Zoë", "z@x.org", nil),
        ("O'Brien", "o@x.org", "1955-03-15"), ("Ann", nil, nil), ("ann", "a@x.org", "1999-12-31"),
    ]
    static let genres = ["Crime", "crime fiction", "Poetry", "Science", "Unused"]

    /// (isbn, title, price, pages, rating, inPrint, added, author index, genres, chapter titles)
    static let books: [(String, String, String?, Int64?, Double?, Bool, String?, Int?, [Int], [String])] = [
        ("001", "The Müller Case", "19.90", 320, 4.5, true, "2024-01-05", 0, [0, 1], ["Start", "Middle", "End"]),
        ("002", "the muller case", "19.90", 310, 3.0, false, "2024-01-05", 1, [0], ["Only"]),
        ("003", "Straße und Weg", "7.05", nil, nil, true, "2023-06-30", 3, [2], []),
        ("004", "Strasse", nil, 100, 5.0, true, nil, 4, [], ["A", "B"]),
        ("005", "Item 2 of 10", "100.00", 2, 1.25, false, "2024-02-29", 5, [3, 2], ["x"]),
        ("006", "Item 10 of 10", "100.00", 10, 1.25, true, "2024-03-01", 6, [3], ["y", "z"]),
        ("007", "Untitled", "0.00", 0, 0.0, true, "2024-03-01", nil, [], []),
        ("008", "Zoë's Poems", "1234567.89", 99, 2.75, false, "2022-12-31", 8, [2], ["Ode", "ode", "ÖDE"]),
        ("009", "O'Brien's \"Quotes\"", "12.345"/* invalid on purpose: replaced below */, 45, nil, true, "2024-01-05", 9, [0, 2, 3], ["Q"]),
        ("010", "Ann & ann", "-5.00", 1, -0.5, false, "2021-01-01", 10, [1], []),
        ("011", "ann again", "19.9", 11, 4.5, true, "2024-01-05", 11, [0, 1, 2, 3], ["1", "2", "10"]),
        ("012", "", nil, nil, nil, false, nil, nil, [], ["empty title"]),
    ]

    static func make() throws -> (Store, TemporaryDirectory) {
        let (store, dir) = try TestModel.makeStore()
        try fill(store)
        return (store, dir)
    }

    /// The fixture's objects saved into `store` (of TestModel.model), in the same order, so with the same IDs.
    static func fill(_ store: Store) throws {
        let c = ObjectContext(store: store)
        var authorObjects: [ManagedObject] = []
        for (name, email, born) in authors {
            let a = try c.insert("Author")
            a["name"] = .string(name)
            a["email"] = email.map(Value.string) ?? .null
            a["born"] = born.map { .date(Day(iso: $0)!) } ?? .null
            authorObjects.append(a)
        }
        var genreObjects: [ManagedObject] = []
        for g in genres {
            let o = try c.insert("Genre")
            o["name"] = .string(g)
            genreObjects.append(o)
        }
        let shelf = try c.insert("Shelf")
        shelf["name"] = .string("Main")
        for (i, b) in books.enumerated() {
            let o = try c.insert("Book")
            o["isbn"] = .string(b.0)
            o["title"] = .string(b.1)
            let price = b.2 == "12.345" ? "12.35" : b.2
            o["price"] = price.map { .decimal(DecimalNumber(exactly: $0)!.exactly(atScale: 2)!) } ?? .null
            o["pages"] = b.3.map(Value.integer) ?? .null
            o["rating"] = b.4.map(Value.double) ?? .null
            o["inPrint"] = .boolean(b.5)
            o["added"] = b.6.map { .date(Day(iso: $0)!) } ?? .null
            if let a = b.7 { try o.setObject(authorObjects[a], for: "author") }
            try o.setObjects(b.8.map { genreObjects[$0] }, for: "genres")
            if i % 3 == 0 { try o.setObject(shelf, for: "shelf") }
            for (n, title) in b.9.enumerated() {
                let ch = try c.insert("Chapter")
                ch["title"] = .string(title)
                try ch.setObject(o, for: "book")
                for k in 0..<(n % 3) {
                    let note = try c.insert("Note")
                    note["text"] = k == 0 ? .string("note \(n)") : .null
                    try note.setObject(ch, for: "chapter")
                }
            }
            if i % 4 == 1 {
                let cover = try c.insert("Cover")
                cover["colour"] = i % 8 == 1 ? .string("Blue") : .null
                try o.setObject(cover, for: "cover")
            }
        }
        try c.save()
    }
}
