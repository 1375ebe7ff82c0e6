// The relationships a bound predicate reads through, as chains from its object (scope 0): `orders.rows.@sum.sum`
// reads [orders, rows], `order.customer.code` [order, customer], a SUBQUERY's filter the chain to its elements and
// on from there. What a rule depends on, for finding the objects whose rules a change may break (see
// `Model.ruleDependencies`).

extension BoundPredicate {
    /// Every chain of relationships the predicate follows from scope 0, each non-empty one once.
    package var relationshipChains: Set<[EntityRelationship]> {
        var walk = KeyPathWalk()
        walk.visit(self)
        return walk.chains
    }
}

private struct KeyPathWalk {
    /// Each scope's chain from scope 0 (a collection's element scope is its collection's chain).
    var scopes: [Int: [EntityRelationship]] = [0: []]
    var chains: Set<[EntityRelationship]> = []

    mutating func visit(_ p: BoundPredicate) {
        switch p {
        case .constant: break
        case .not(let inner): visit(inner)
        case .and(let a, let b), .or(let a, let b): visit(a); visit(b)
        case .comparison(let c): visit(c.left); visit(c.right)
        case .quantified(_, let c, let element): collection(c); visit(element)
        }
    }

    mutating func visit(_ e: BoundExpression) {
        switch e {
        case .literal, .list: break
        case .attribute(let path, _), .reference(let path, _): add(path)
        case .aggregate(_, let c, let value, _):
            collection(c)
            if let value { add(value) }
        case .values(let c, let path, _): collection(c); add(path)
        case .period(_, let inner): visit(inner)
        case .groupAggregate(_, let e, let weight):
            if let e { visit(e) }
            if let weight { visit(weight) }
        }
    }

    mutating func collection(_ c: BoundCollection) {
        let chain = (scopes[c.scope] ?? []) + c.hops
        scopes[c.elementScope] = chain
        if !chain.isEmpty { chains.insert(chain) }
        if let filter = c.filter { visit(filter) }
    }

    mutating func add(_ path: ToOnePath) {
        let chain = (scopes[path.scope] ?? []) + path.hops
        if !chain.isEmpty { chains.insert(chain) }
    }
}
