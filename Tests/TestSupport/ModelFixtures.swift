/// Model files the tests of several targets share.
public enum ModelFixtures {
    /// The README's model-file example, nearly: a Bank directory keyed by `cert`, with a rule and a default sort, and a
    /// relationship added to the built-in Customer.
    public static let banks = """
        entities:
          Bank:
            kind: directory                 # directory | document | rows
            key: cert                       # natural key
            attributes:
              name:     { type: string, required: true }
              city:     { type: string }
              cert:     { type: integer, unique: true, required: true }
              closed:   { type: date }
              deposits: { type: decimal, scale: 2 }
            rules:
              - { where: "deposits == nil OR deposits >= 0", message: "deposits cannot be negative" }
            sort: closed desc, name
          Customer:
            attributes:
              vat: { type: string, unique: true }
            relationships:
              bank: { to: Bank, inverse: customers, delete: nullify }   # the inverse to-many is created on Bank
        """
}
