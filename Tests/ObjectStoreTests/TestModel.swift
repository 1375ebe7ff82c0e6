import ObjectStore
import TestSupport

/// A small library model that exercises every relationship shape and delete rule, and nothing of bookkeeping:
/// Author -< Book (Author.books Deny), Book -< Chapter (Cascade), Book >-< Genre (Nullify),
/// Book - Cover one-to-one (Cascade), Shelf -< Book (No Action on Shelf.books), Chapter -< Note (Cascade),
/// Book -< Loan (Nullify, but Loan.book is required).
enum TestModel {
    static let model: Model = try! Model(entities: [
        Entity("Author", kind: .directory, naturalKey: "name", attributes: [
            Attribute("name", .string, required: true, unique: true),
            Attribute("email", .string, unique: true),
            Attribute("born", .date),
        ], relationships: [
            Relationship("books", to: "Book", inverse: "author", toMany: true, deleteRule: .deny),
        ]),
        Entity("Book", kind: .document, naturalKey: "isbn", attributes: [
            Attribute("isbn", .string, required: true, unique: true),
            Attribute("title", .string, required: true),
            Attribute("price", .decimal(scale: 2)),
            Attribute("pages", .integer),
            Attribute("rating", .double),
            Attribute("inPrint", .boolean, required: true, default: .value(.boolean(true))),
            Attribute("added", .date, default: .today),
            Attribute("scan", .binary),
            Attribute("checked", .dateTime),
        ], relationships: [
            Relationship("author", to: "Author", inverse: "books", deleteRule: .nullify),
            Relationship("chapters", to: "Chapter", inverse: "book", toMany: true, deleteRule: .cascade),
            Relationship("genres", to: "Genre", inverse: "books", toMany: true, deleteRule: .nullify),
            Relationship("cover", to: "Cover", inverse: "book", deleteRule: .cascade),
            Relationship("shelf", to: "Shelf", inverse: "books", deleteRule: .nullify),
            Relationship("loans", to: "Loan", inverse: "book", toMany: true, deleteRule: .nullify),
        ]),
        Entity("Loan", kind: .rows, attributes: [Attribute("to", .string)], relationships: [
            Relationship("book", to: "Book", inverse: "loans", required: true, deleteRule: .nullify),
        ]),
        Entity("Chapter", kind: .rows, attributes: [
            Attribute("title", .string, required: true),
        ], relationships: [
            Relationship("book", to: "Book", inverse: "chapters", required: true, deleteRule: .nullify),
            Relationship("notes", to: "Note", inverse: "chapter", toMany: true, deleteRule: .cascade),
        ]),
        Entity("Note", kind: .rows, attributes: [Attribute("text", .string)], relationships: [
            Relationship("chapter", to: "Chapter", inverse: "notes", required: true, deleteRule: .nullify),
        ]),
        Entity("Genre", kind: .directory, naturalKey: "name", attributes: [
            Attribute("name", .string, required: true, unique: true),
        ], relationships: [
            Relationship("books", to: "Book", inverse: "genres", toMany: true, deleteRule: .nullify),
        ]),
        Entity("Cover", kind: .rows, attributes: [Attribute("colour", .string)], relationships: [
            Relationship("book", to: "Book", inverse: "cover", deleteRule: .nullify),
        ]),
        Entity("Shelf", kind: .directory, naturalKey: "name", attributes: [
            Attribute("name", .string, required: true, unique: true),
        ], relationships: [
            Relationship("books", to: "Book", inverse: "shelf", toMany: true, deleteRule: .noAction),
        ]),
    ], behaviours: [
        "Book": EntityBehaviour(validate: { book in
            if case .integer(let pages) = book["pages"], pages < 0 { return ["Book.pages cannot be negative"] }
            return []
        }),
    ])

    /// A new store of the test model in its own temporary directory.
    static func makeStore() throws -> (Store, TemporaryDirectory) {
        let dir = TemporaryDirectory()
        return (try Store.create(at: dir.file("test.sqlite"), model: model), dir)
    }
}
