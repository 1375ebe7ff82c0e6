import ObjectStore
import TestSupport

/// A small library model that exercises every relationship shape and delete rule, and nothing of bookkeeping:
/// Author -< Book (Author.books Deny), Book -< Chapter (Cascade), Book >-< Genre (Nullify),
/// Book - Cover one-to-one (Cascade), Shelf -< Book (No Action on Shelf.books), Chapter -< Note (Cascade),
/// Book -< Loan (Nullify, but Loan.book is required).
enum TestModel {
    static let model: ObjectModel = try! ObjectModel(entities: [
        Entity("Author", kind: .directory, naturalKey: "name", attributes: [
            EntityAttribute("name", .string, required: true, unique: true),
            EntityAttribute("email", .string, unique: true),
            EntityAttribute("born", .date),
        ], relationships: [
            EntityRelationship("books", to: "Book", inverse: "author", toMany: true, deleteRule: .deny),
        ]),
        Entity("Book", kind: .document, naturalKey: "isbn", attributes: [
            EntityAttribute("isbn", .string, required: true, unique: true),
            EntityAttribute("title", .string, required: true),
            EntityAttribute("price", .decimal(scale: 2)),
            EntityAttribute("pages", .integer),
            EntityAttribute("rating", .double),
            EntityAttribute("inPrint", .boolean, required: true, default: .value(.boolean(true))),
            EntityAttribute("added", .date, default: .today),
            EntityAttribute("scan", .binary),
            EntityAttribute("checked", .dateTime),
        ], relationships: [
            EntityRelationship("author", to: "Author", inverse: "books", deleteRule: .nullify),
            EntityRelationship("chapters", to: "Chapter", inverse: "book", toMany: true, deleteRule: .cascade),
            EntityRelationship("genres", to: "Genre", inverse: "books", toMany: true, deleteRule: .nullify),
            EntityRelationship("cover", to: "Cover", inverse: "book", deleteRule: .cascade),
            EntityRelationship("shelf", to: "Shelf", inverse: "books", deleteRule: .nullify),
            EntityRelationship("loans", to: "Loan", inverse: "book", toMany: true, deleteRule: .nullify),
        ]),
        Entity("Loan", kind: .rows, attributes: [EntityAttribute("to", .string)], relationships: [
            EntityRelationship("book", to: "Book", inverse: "loans", required: true, deleteRule: .nullify),
        ]),
        Entity("Chapter", kind: .rows, attributes: [
            EntityAttribute("title", .string, required: true),
        ], relationships: [
            EntityRelationship("book", to: "Book", inverse: "chapters", required: true, deleteRule: .nullify),
            EntityRelationship("notes", to: "Note", inverse: "chapter", toMany: true, deleteRule: .cascade),
        ]),
        Entity("Note", kind: .rows, attributes: [EntityAttribute("text", .string)], relationships: [
            EntityRelationship("chapter", to: "Chapter", inverse: "notes", required: true, deleteRule: .nullify),
        ]),
        Entity("Genre", kind: .directory, naturalKey: "name", attributes: [
            EntityAttribute("name", .string, required: true, unique: true),
        ], relationships: [
            EntityRelationship("books", to: "Book", inverse: "genres", toMany: true, deleteRule: .nullify),
        ]),
        Entity("Cover", kind: .rows, attributes: [EntityAttribute("colour", .string)], relationships: [
            EntityRelationship("book", to: "Book", inverse: "cover", deleteRule: .nullify),
        ]),
        Entity("Shelf", kind: .directory, naturalKey: "name", attributes: [
            EntityAttribute("name", .string, required: true, unique: true),
        ], relationships: [
            EntityRelationship("books", to: "Book", inverse: "shelf", toMany: true, deleteRule: .noAction),
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
