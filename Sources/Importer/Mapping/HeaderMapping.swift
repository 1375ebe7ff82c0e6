// Header → key paths. Header names are trimmed of spaces, non-breaking spaces and byte-order marks
// (the FDIC list ends every name with U+00A0). Each column maps by, in order: a `--map` entry for it
// (an explicit statement beats a guess), its name as a key path exactly, then case-insensitively.
// A column that maps to nothing is an error naming it (with a did-you-mean) unless ignoreUnknown;
// a `--map` entry naming no column, a key path that names nothing, and two columns filling one
// property are errors too. Everything is checked before any row is read.

import ObjectStore

package struct HeaderMapping: Sendable {
    /// Per column: what it fills, or nil (ignored).
    package let targets: [ColumnTarget?]
    /// Column names as trimmed.
    package let names: [String]
    /// Columns that map to nothing and are ignored (with ignoreUnknown).
    package let unknown: [String]

    /// Trims spaces, tabs, non-breaking spaces and byte-order marks from both ends.
    package static func trim(_ name: String) -> String {
        let junk: Set<Unicode.Scalar> = [" ", "\t", "\u{A0}", "\u{FEFF}", "\u{202F}"]
        var scalars = Substring(name).unicodeScalars[...]
        while let f = scalars.first, junk.contains(f) { scalars = scalars.dropFirst() }
        while let l = scalars.last, junk.contains(l) { scalars = scalars.dropLast() }
        return String(String.UnicodeScalarView(scalars))
    }

    /// One problem found while mapping, with the exit category it calls for.
    package struct Problem: Sendable, Equatable {
        package let message: String
        package let category: ErrorCategory
    }

    /// Every problem found while mapping.
    package struct Problems: Error, Sendable {
        package let list: [Problem]
    }

    /// Maps `header` for `resolver`'s entity. Returns the mapping or every problem found.
    package static func make(header: [String], resolver: KeyPathResolver, map: [String: String], mapOrder: [String],
                            mapSource: OptionSource, ignoreUnknown: Bool) -> Result<HeaderMapping, Problems> {
        let names = header.map(trim)
        var problems: [Problem] = []
        let mapCategory: ErrorCategory = mapSource == .commandLine ? .usage : .configuration
        let mapPlace: String = {
            if case .profile(let file) = mapSource { return "\(file): " }
            return ""
        }()

        // --map entries, by trimmed column name.
        var explicit: [String: String] = [:]
        let lowerNames = names.map { $0.lowercased() }
        for column in mapOrder {
            let trimmed = trim(column)
            let keyPath = map[column]!
            if !names.contains(trimmed) {
                // Accept a different case when it is unambiguous.
                let matches = names.filter { $0.lowercased() == trimmed.lowercased() }
                if matches.count == 1 {
                    explicit[matches[0]] = keyPath
                    continue
                }
                problems.append(Problem(
                    message: "\(mapPlace)--map \"\(column)=\(keyPath)\": the file has no column \"\(trimmed)\"\(Suggestions.didYouMean(Suggestions.closest(to: trimmed, in: names)))",
                    category: mapCategory))
                continue
            }
            explicit[trimmed] = keyPath
        }

        let candidates = resolver.candidates
        var targets: [ColumnTarget?] = []
        var unknown: [String] = []
        var filled: [String: String] = [:]   // target description → column that fills it
        for (i, name) in names.enumerated() {
            var target: ColumnTarget?
            // Why a column that names a property cannot fill it (`row` on a Note whose OrderRow has no key): said
            // as it is. Seen (attack 27, finding 15): `column "row" maps to nothing on Note — did you mean "row"?`.
            var unimportable: String?
            if let keyPath = explicit[name] {
                if keyPath.trimmingCharacters(in: .whitespaces).isEmpty {
                    targets.append(nil)
                    continue
                }
                do {
                    target = try resolver.resolve(keyPath.trimmingCharacters(in: .whitespaces))
                } catch {
                    problems.append(Problem(message: "\(mapPlace)--map \"\(name)=\(keyPath)\": \(error.message)", category: mapCategory))
                    targets.append(nil)
                    continue
                }
            } else if !name.isEmpty {
                var path: String? = candidates.contains(name) ? name : nil
                if path == nil {
                    let matches = candidates.filter { $0.lowercased() == lowerNames[i] }
                    if matches.count == 1 { path = matches[0] }
                }
                if path == nil, name.contains(".") {
                    // `customer.code`: a key path the candidates do not list.
                    if let t = try? resolver.resolve(name) { target = t }
                    else {
                        let lowered = lowerCasedPath(name, candidates)
                        do { target = try resolver.resolve(lowered) } catch {
                            // Into a relationship the entity has: why that key path names nothing importable.
                            if let first = lowered.split(separator: ".").first, candidates.contains(String(first)) {
                                unimportable = unquoted(error.message, lowered)
                            }
                        }
                    }
                }
                if let path {
                    do { target = try resolver.resolve(path) } catch { unimportable = unquoted(error.message, path) }
                }
            }
            guard let target else {
                let shown = name.isEmpty ? "column \(i + 1) (no name)" : "column \"\(name)\""
                if ignoreUnknown {
                    unknown.append(name.isEmpty ? "#\(i + 1)" : name)
                } else if let unimportable {
                    problems.append(Problem(message: "\(shown): \(unimportable)", category: .data))
                } else {
                    let suggestion = name.isEmpty ? "" : Suggestions.didYouMean(Suggestions.closest(to: name, in: candidates))
                    problems.append(Problem(message: "\(shown) maps to nothing on \(resolver.entity.name)\(suggestion)", category: .data))
                }
                targets.append(nil)
                continue
            }
            let id = "\(target.inRows ? "rows." : "")\(target.property)"
            if let other = filled[id] {
                problems.append(Problem(message: "columns \"\(other)\" and \"\(name)\" both fill \(id)", category: .data))
            }
            filled[id] = name
            targets.append(target)
        }
        if problems.contains(where: { $0.message.contains("maps to nothing") }) {
            problems.append(Problem(
                message: "map such columns with --map \"COLUMN=keypath\" (or --map \"COLUMN=\" to ignore one), or pass --ignore-unknown; key paths of \(resolver.entity.name): \(candidates.joined(separator: ", "))",
                category: .data))
        }
        if !problems.isEmpty { return .failure(Problems(list: problems)) }
        return .success(HeaderMapping(targets: targets, names: names, unknown: unknown))
    }

    /// A resolver's message without the key path it starts with, which the column's name already gives.
    private static func unquoted(_ message: String, _ path: String) -> String {
        let prefix = "\"\(path)\": "
        return message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
    }

    /// `Customer.Code` → `customer.code` when the relationship matches a candidate case-insensitively.
    private static func lowerCasedPath(_ name: String, _ candidates: [String]) -> String {
        let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2, let c = candidates.first(where: { $0.lowercased() == parts[0].lowercased() }) else { return name }
        return "\(c).\(parts[1])"
    }
}
