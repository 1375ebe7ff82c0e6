import Foundation

// `key=value` assignments as the command line gives them: attributes from text, to-one relationships by
// reference (`customer=Acme Ltd`, `customer=Customer/3`, `customer.code=C042`), to-many relationships as a
// comma-separated list (`tags=vip,wholesale`, `tags+=vip`, `tags-=vip`). An empty value clears.

package struct Assignment: Sendable, Equatable {
    package enum Operation: Sendable, Equatable { case set, add, remove }

    /// The property, possibly with a key to look the target up by: `customer.code`.
    package let key: String
    package let operation: Operation
    package let value: String

    package init(key: String, operation: Operation = .set, value: String) {
        self.key = key
        self.operation = operation
        self.value = value
    }

    /// Parses `key=value`, `key+=value` or `key-=value` (the value may contain `=`).
    package init(parsing text: String) throws(InputError) {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
            throw InputError("expected key=value, got \"\(text)\"", category: .usage)
        }
        var key = String(text[..<eq])
        var operation = Operation.set
        if key.hasSuffix("+") { operation = .add; key.removeLast() }
        else if key.hasSuffix("-") { operation = .remove; key.removeLast() }
        key = key.trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty else { throw InputError("expected key=value, got \"\(text)\"", category: .usage) }
        self.init(key: key, operation: operation, value: String(text[text.index(after: eq)...]))
    }
}

extension ObjectContext {
    /// Applies assignments to an object, checking each key against the model and each value against its type.
    /// Every assignment is tried: all the problems of a command are reported together, one line each.
    package func apply(_ assignments: [Assignment], to object: ManagedObject) throws {
        var problems: [any CategorizedError] = []
        for assignment in assignments {
            do {
                try apply(assignment, to: object)
            } catch let error as CategorizedError {
                problems.append(error)
            }
        }
        if problems.count == 1 { throw problems[0] }
        if !problems.isEmpty { throw AssignmentErrors(problems: problems) }
    }

    package func apply(_ assignment: Assignment, to object: ManagedObject) throws {
        let entity = object.entity
        let parts = assignment.key.split(separator: ".", maxSplits: 1).map(String.init)
        let property = try entity.requireProperty(parts[0])
        let lookupKey = parts.count > 1 ? parts[1] : nil
        let text = assignment.value
        switch property {
        case .attribute(let a):
            guard lookupKey == nil else {
                throw InputError("\(entity.name).\(a.name) is an attribute; \"\(assignment.key)\" looks into a relationship", category: .usage)
            }
            guard assignment.operation == .set else {
                throw InputError("\(entity.name).\(a.name) is an attribute; use \(a.name)=value, not += or -=", category: .usage)
            }
            let value: Value
            do {
                value = text.isEmpty ? .null : try Value.parse(text, as: a.type)
            } catch {
                throw InputError("\(entity.name).\(a.name): \(error.message)")
            }
            object[a.name] = value
        case .relationship(let r) where !r.isToMany:
            guard assignment.operation == .set else {
                throw InputError("\(entity.name).\(r.name) is to-one; use \(r.name)=value, not += or -=", category: .usage)
            }
            let target = text.isEmpty ? nil : try reference(text, for: r, in: entity, by: lookupKey)
            try object.setObject(target, for: r.name)
        case .relationship(let r):
            // Keys as `export` writes them (ListText.swift): `a, b`, or a key in quotes (`"x, y", z`).
            let items: [String]
            do { items = try ListText.split(text) } catch { throw InputError("\(entity.name).\(r.name): \(error.message)") }
            let targets = try items.map { try reference($0, for: r, in: entity, by: lookupKey) }
            switch assignment.operation {
            case .set: try object.setObjects(targets, for: r.name)
            case .add: for t in targets { try object.add(t, to: r.name) }
            case .remove: for t in targets { try object.remove(t, from: r.name) }
            }
        }
    }

    private func reference(_ text: String, for r: EntityRelationship, in entity: Entity, by key: String?) throws -> ManagedObject {
        do {
            return try resolve(text, in: r.destination, by: key)
        } catch let error as ContextError {
            switch error {
            case .objectNotFound, .keyNotFound, .wrongEntity, .noNaturalKey, .misspeltEntity:
                throw InputError("\(entity.name).\(r.name): \(error)")
            case .ambiguousReference:
                throw InputError("\(entity.name).\(r.name): \(error)", category: .usage)
            default:
                throw error
            }
        }
    }
}

/// Several assignments of one command failed: one line each; a usage error (an unknown key) makes the whole a
/// usage error, else it is a data error.
package struct AssignmentErrors: CategorizedError {
    package let problems: [any CategorizedError]
    package var category: ErrorCategory { problems.contains { $0.category == .usage } ? .usage : problems[0].category }
    package var description: String { messages.joined(separator: "\n") }
    package var messages: [String] { problems.flatMap(\.messages) }
}

extension Assignment {
    /// Refuses two `key=` for one property (`name=a name=b`, or `customer=Acme customer.code=C1`), naming both:
    /// keeping either silently would store a value the user may not have meant. `+=` and `-=` may repeat,
    /// as they add to and remove from a to-many relationship in order.
    package static func checkNoConflicts(_ assignments: [Assignment]) throws(InputError) {
        var first: [String: Assignment] = [:]
        for assignment in assignments where assignment.operation == .set {
            let property = String(assignment.key.prefix { $0 != "." })
            if let earlier = first[property] {
                throw InputError("\(property) is given twice: \"\(earlier.key)=\(earlier.value)\" and "
                                 + "\"\(assignment.key)=\(assignment.value)\" — give one value", category: .usage)
            }
            first[property] = assignment
        }
    }
}
