// Validation of one record before it is written, worded as ObjectContext's save words it: required
// values, types and scales, uniqueness against the store (which, inside the batch's transaction, also
// holds what the batch wrote before; for a table that was empty, against the key caches, which know every
// row), required to-one relationships, and the domain's rules.

extension BatchWriter {
    /// Every problem of the record. `stored` is the row it updates (nil for an insert); `knownAbsent` is an
    /// attribute already known to be unique for this record (the key just looked up).
    func validate(_ r: BatchRecord, _ layout: EntityLayout, stored: StoredRow?,
                  knownAbsent: Int? = nil) throws(BatchError) -> [BatchIssue] {
        var issues: [BatchIssue] = []
        let e = layout.entity  // (only read on the way to a message)
        for k in 0..<r.count {
            let value = r.values[k]
            let type = layout.types[k]
            if value.isNull {
                if layout.required[k] { issues.append(BatchIssue(key: layout.names[k], message: "\(e.name).\(layout.names[k]) is required")) }
                continue
            }
            if !value.fitsConverted(type) {
                let a = e.attributes[k]
                if case .decimal(let d) = value, case .decimal(let scale) = a.type {
                    if d.exactly(atScale: scale) != nil, layout.rangeCheckedByBehaviour.contains(a.name) { continue }
                    issues.append(BatchIssue(key: a.name, message: "\(e.name).\(a.name) \(Value.decimalMisfit(d, scale: scale))"))
                } else {
                    issues.append(BatchIssue(key: a.name, message: value.unstorableReason(in: a.type).map { "\(e.name).\(a.name) \($0)" }
                                             ?? "\(e.name).\(a.name) \"\(value)\" is not a \(a.type)"))
                }
                continue
            }
            if layout.checksUniqueness[k] && k != knownAbsent {
                let a = e.attributes[k]
                let v = value.storedValue(for: a.type)
                if let stored, stored.attributes[k] == v { continue }
                var holder: Int64?
                if layout.maxIDAtStart == 0 {
                    // The table was empty: the attribute's cache knows every row (and its unique index may be
                    // dropped until the batch ends; see BatchWriter+Indexes).
                    if let id = try cached(keyCache(layout, k), v), id != stored?.id { holder = id }
                } else {
                    let s = try statement(sql.ids(from: layout.entity.name, where: a.name, limit: 2))
                    s.bind(1, v)
                    while try s.step() {
                        let id = s.int64(0)!
                        if id != stored?.id { holder = id; break }
                    }
                    s.reset()
                }
                if let holder {
                    let when = isNew(e.name, holder) ? ", written earlier in this batch" : ""
                    issues.append(BatchIssue(key: a.name, message: "\(e.name).\(a.name) \"\(value)\" already exists (\(e.name)/\(holder)\(when))"))
                } else if case .text(let text) = v, !TextFolding.isASCII(text) {
                    // The unique index compares bytes: the same text in another normal form is this check's to find.
                    let cache = try keyCache(layout, k)
                    if let id = try canonicalMatch(text, cache, layout), id != stored?.id {
                        let spelling = try storedKey(cache, layout, id: id) ?? ""
                        issues.append(BatchIssue(key: a.name, message: "\(e.name).\(a.name) \"\(value)\" already exists "
                                                 + "(\(e.name)/\(id), as \"\(spelling)\", the same text in another Unicode normal form)"))
                    }
                }
            }
        }
        for (k, fk) in layout.toOne.enumerated() where fk.relationship.isRequired && r.references[k] == nil {
            issues.append(BatchIssue(key: fk.relationship.name, message: "\(e.name).\(fk.relationship.name) is required"))
        }
        if let rules = layout.validateRule {
            for message in rules(r) { issues.append(BatchIssue(key: nil, message: message)) }
        }
        return issues
    }

    /// The required attributes and to-one relationships of `entityName` that records giving only `attributes`
    /// and `references` could never have: no default, and the domain's `willSave` does not derive them. Found by
    /// trying: a probe record gets a placeholder for every given attribute and the defaults, then `willSave`.
    package func missingRequired(_ entityName: String, attributes: Set<String>,
                                references: Set<String>) throws(BatchError) -> [String] {
        let layout = try layout(named: entityName)
        let e = layout.entity
        let probe = BatchRecord(layout: layout)
        for (k, a) in e.attributes.enumerated() where attributes.contains(a.name) {
            probe.set(BatchWriter.placeholder(for: a.type), at: k)
        }
        applyDefaults(probe, layout)
        model.behaviours[e.name]?.willSave?(probe)
        var missing: [String] = []
        for (k, a) in e.attributes.enumerated() where a.isRequired && probe.values[k].isNull {
            missing.append(a.name)
        }
        for fk in layout.toOne where fk.relationship.isRequired && !references.contains(fk.relationship.name) {
            missing.append(fk.relationship.name)
        }
        return missing
    }

    static func placeholder(for type: AttributeType) -> Value {
        switch type {
        case .string: .string("x")
        case .integer: .integer(1)
        case .decimal(let scale): .decimal(DecimalNumber(units: 1, scale: scale))
        case .double: .double(1)
        case .boolean: .boolean(true)
        case .date: .date(Day(year: 2000, month: 1, day: 1)!)
        case .dateTime: .dateTime(Timestamp(secondsSinceEpoch: 0))
        case .binary: .binary(.init([0]))
        }
    }
}

extension BatchWriter {
    /// The model's rules that object `id` of `entityName` breaks as the batch stands (its messages); for
    /// `--on-error skip`, which rejects a record or a document that would break one instead of the whole batch.
    package func ruleViolations(of entityName: String, id: Int64) throws -> [String] {
        guard let entity = model.entity(named: entityName), !entity.rules.isEmpty else { return [] }
        var messages: [String] = []
        for rule in entity.rules {
            let plan = try FetchPlan(ObjectFetchRequest(entity: entity.name, predicate: "NOT (\(rule.predicate))"), model: model, columns: [])
            let (fetch, arguments) = plan.sql(.objects, dialect: connection.dialect)
            // (The ID after the fetch's own parameters: as parameter 1 it was compared with the rule's first value,
            // so a rule with a value never rejected a record alone under --on-error skip.)
            let s = try statement(sql.isAmong(fetch, idParameter: arguments.count + 1))
            for (i, a) in arguments.enumerated() { s.bind(Int32(i + 1), a) }
            s.bind(Int32(arguments.count + 1), id)
            defer { s.reset() }
            if try s.step() { messages.append(rule.message) }
        }
        return messages
    }
}
