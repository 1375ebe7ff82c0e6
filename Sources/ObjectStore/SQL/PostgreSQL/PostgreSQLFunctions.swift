// The SQL functions a PostgreSQL store's schema holds so that its queries answer as SQLite's do: NSPredicate's
// folding ([c], [d]), the nocase and natural sorts, the string operators and MATCHES (docs/queries.md, "On
// PostgreSQL"). SQLite registers Swift closures for these (StoreFunctions.swift); PostgreSQL runs SQL and PL/pgSQL
// that `init` creates, with Unicode tables written into them from this process's data (PostgreSQLUnicodeTables).
//
// Every function needs no superuser and no extension. Those in PL/pgSQL or with a body parsed late pin their
// search_path (`SET search_path = pg_catalog, pg_temp`) and name our own functions schema-qualified. The four
// that must be inlined to be fast (bk_matches and bk_like, whose pattern is translated once per query when it is a
// constant or a bound value, and their helpers) take a standard SQL body (`RETURN …`) instead, parsed once when
// created with every name qualified, operators included: a SET clause would stop PostgreSQL from inlining them.
package enum PostgreSQLFunctions {
    /// The CREATE OR REPLACE FUNCTION statements, in order, for the schema named `schema` (unquoted).
    package static func statements(schema: String) -> [String] {
        let s = quoted(schema)
        let t = PostgreSQLUnicodeTables.shared
        return [
            escapeFunction(s), foldFunction(s, t), foldWrapper(s), nocaseKeyFunction(s), naturalKeyFunction(s),
            beginsWith(s), endsWith(s), contains(s),
            debugQuote(s), escapeReason(s), groupReason(s), regexMember(s), regexSingle(s), regexFoldRun(s), regexFunction(s, t), matches(s),
            likePattern(s), likeRegex(s, t), likeApply(s), like(s),
        ]
    }

    private static let pinned = "SET search_path = pg_catalog, pg_temp"

    /// A text as a SQL string literal.
    static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    static func scalars(_ list: [Unicode.Scalar]) -> String {
        var text = String.UnicodeScalarView()
        text.append(contentsOf: list)
        return String(text)
    }

    // MARK: - Folding and sort keys

    /// `bk_are_escape(code)`: a scalar as an ARE escape, `\u00e9` or `\U0001f469`.
    static func escapeFunction(_ s: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(s).bk_are_escape(code integer) RETURNS text
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE \(pinned)
        AS $bk$ SELECT CASE WHEN code <= 65535 THEN '\\u' || lpad(to_hex(code), 4, '0')
                            ELSE '\\U' || lpad(to_hex(code), 8, '0') END $bk$
        """
    }

    /// `bk_fold(x, flags)`: TextFolding.fold. ASCII: lower(x COLLATE "C"). Else NFD (PostgreSQL's), then with
    /// [d] the combining marks removed, then with [c] ASCII lowercased and each other scalar that occurs replaced
    /// by its full case folding, looked up in one map of every scalar that folds (a translate() over the 1,400
    /// scalars took 230 µs a value, this 12 µs), then with [d] again the marks some foldings bring (İ → i + U+0307).
    /// Flag 4, bk_regex's, leaves out the decomposition.
    static func foldFunction(_ s: String, _ t: PostgreSQLUnicodeTables) -> String {
        let marks = "[" + PostgreSQLUnicodeTables.bracketBody(t.combiningMarks) + "]"
        var map: [(String, String)] = zip(t.singleFrom, t.singleTo).map { (String(Character($0)), String(Character($1))) }
        map += t.multi.map { (String(Character($0.0)), scalars($0.1)) }
        let json = "{" + map.map { "\"\(jsonEscaped($0.0))\":\"\(jsonEscaped($0.1))\"" }.joined(separator: ",") + "}"
        return """
        CREATE OR REPLACE FUNCTION \(s).bk_fold_full(x text, flags integer) RETURNS text
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE \(pinned)
        AS $bk$
        DECLARE
          y text;
          ch text;
          folded text;
          c boolean := coalesce(flags, 0) & 1 <> 0;
          d boolean := coalesce(flags, 0) & 2 <> 0;
        BEGIN
          IF x IS NULL OR NOT (c OR d) THEN RETURN x; END IF;
          IF octet_length(x) = length(x) THEN
            RETURN CASE WHEN c THEN lower(x COLLATE "C") ELSE x END;
          END IF;
          y := CASE WHEN coalesce(flags, 0) & 4 <> 0 THEN x ELSE normalize(x, NFD) END;
          IF d THEN y := regexp_replace(y, \(literal(marks)), '', 'g'); END IF;
          IF c THEN
            y := lower(y COLLATE "C");
            FOR ch IN SELECT DISTINCT m[1] FROM regexp_matches(y, '([^\\u0001-\\u007f])', 'g') AS m LOOP
              folded := \(literal(json))::jsonb ->> ch;
              IF folded IS NOT NULL THEN y := replace(y, ch, folded); END IF;
            END LOOP;
            IF d THEN y := regexp_replace(y, \(literal(marks)), '', 'g'); END IF;
          END IF;
          RETURN y;
        END
        $bk$
        """
    }

    /// `bk_fold(x, flags)`: ASCII and no flags answered inline (a call of PL/pgSQL costs some 4 µs), the rest by
    /// bk_fold_full.
    static func foldWrapper(_ s: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(s).bk_fold(x text, flags integer) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN CASE WHEN coalesce(flags, 0) OPERATOR(pg_catalog.&) 3 OPERATOR(pg_catalog.=) 0 THEN x
                    WHEN pg_catalog.octet_length(x) OPERATOR(pg_catalog.<>) pg_catalog.length(x) THEN \(s).bk_fold_full(x, flags)
                    WHEN coalesce(flags, 0) OPERATOR(pg_catalog.&) 1 OPERATOR(pg_catalog.=) 0 THEN x
                    ELSE pg_catalog.lower(x COLLATE pg_catalog."C") END
        """
    }

    /// A text inside a JSON string.
    static func jsonEscaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            default:
                if scalar.value < 0x20 { result += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16) } else { result.unicodeScalars.append(scalar) }
            }
        }
        return result
    }

    /// `bk_nocase_key(x)`: TextCollation.nocaseCompare as bytes: the [c] fold, 0x00, the NFC form.
    static func nocaseKeyFunction(_ s: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(s).bk_nocase_key(x text) RETURNS bytea
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE \(pinned)
        AS $bk$ SELECT CASE WHEN octet_length(x) = length(x)
                            THEN convert_to(lower(x COLLATE "C"), 'UTF8') || '\\x00'::bytea || convert_to(x, 'UTF8')
                            ELSE convert_to(\(s).bk_fold(x, 1), 'UTF8') || '\\x00'::bytea || convert_to(normalize(x, NFC), 'UTF8') END $bk$
        """
    }

    /// `bk_natural_key(x)`: TextCollation.naturalCompare's four levels, separated by 0x00. Level 1, of the [cd]
    /// fold: a character as 0x02 and its UTF-8; a run of ASCII digits as 0x01, its count of digits without the
    /// leading zeros (ten decimal digits) and those digits. Level 2: each run's count of digits as written (ten
    /// decimal digits). Level 3: the [c] fold. Level 4: the NFC form.
    static func naturalKeyFunction(_ s: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(s).bk_natural_key(x text) RETURNS bytea
        LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE \(pinned)
        AS $bk$
        DECLARE
          ascii_only boolean := octet_length(x) = length(x);
          f text := CASE WHEN ascii_only THEN lower(x COLLATE "C") ELSE \(s).bk_fold(x, 3) END;
          one text := '';
          two text := '';
          r text[];
          digits text;
        BEGIN
          IF f !~ '[0-9]' THEN
            one := regexp_replace(f, '(.)', E'\\x02\\\\1', 'g');
          ELSE
            FOR r IN SELECT regexp_matches(f, '([^0-9]+)|([0-9]+)', 'g') LOOP
              IF r[1] IS NOT NULL THEN
                one := one || regexp_replace(r[1], '(.)', E'\\x02\\\\1', 'g');
              ELSE
                digits := ltrim(r[2], '0');
                IF digits = '' THEN digits := '0'; END IF;
                one := one || E'\\x01' || lpad(length(digits)::text, 10, '0') || digits;
                two := two || lpad(length(r[2])::text, 10, '0');
              END IF;
            END LOOP;
          END IF;
          RETURN convert_to(one, 'UTF8') || '\\x00'::bytea || convert_to(two, 'UTF8') || '\\x00'::bytea
              || CASE WHEN ascii_only THEN convert_to(f, 'UTF8') || '\\x00'::bytea || convert_to(x, 'UTF8')
                      ELSE convert_to(\(s).bk_fold(x, 1), 'UTF8') || '\\x00'::bytea || convert_to(normalize(x, NFC), 'UTF8') END;
        END
        $bk$
        """
    }

    // MARK: - BEGINSWITH, ENDSWITH, CONTAINS

    /// The folded text and needle compared byte by byte (`t`, `n` in `test`); 0 for a NULL or an empty needle (as
    /// NSPredicate). Inlined (a standard SQL body, every name qualified), so that an ASCII value costs no call.
    private static func stringOperator(_ s: String, _ name: String, _ test: String) -> String {
        let t = "\(s).bk_fold(x, flags) COLLATE pg_catalog.\"C\"", n = "\(s).bk_fold(p, flags) COLLATE pg_catalog.\"C\""
        return """
        CREATE OR REPLACE FUNCTION \(s).\(name)(x text, p text, flags integer) RETURNS integer
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN CASE WHEN x IS NULL OR p IS NULL OR p OPERATOR(pg_catalog.=) '' THEN 0
                    WHEN \(test.replacingOccurrences(of: "$t", with: t).replacingOccurrences(of: "$n", with: n)) THEN 1 ELSE 0 END
        """
    }

    static func beginsWith(_ s: String) -> String { stringOperator(s, "bk_beginswith", "pg_catalog.starts_with($t, $n)") }
    /// The suffix by characters is the suffix by bytes (UTF-8 synchronises): the reversed needle begins the reversed text.
    static func endsWith(_ s: String) -> String {
        stringOperator(s, "bk_endswith", "pg_catalog.starts_with(pg_catalog.reverse($t), pg_catalog.reverse($n))")
    }
    static func contains(_ s: String) -> String {
        stringOperator(s, "bk_contains", "pg_catalog.strpos($t, $n) OPERATOR(pg_catalog.>) 0")
    }

    // MARK: - MATCHES

    /// `bk_debug_quote(t)`: t as Swift's String.debugDescription writes it (TextRegexError's messages).
    static func debugQuote(_ s: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(s).bk_debug_quote(t text) RETURNS text
        LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE \(pinned)
        AS $bk$
        DECLARE
          r text := '';
          c text;
          code integer;
        BEGIN
          FOREACH c IN ARRAY regexp_split_to_array(t, '') LOOP
            code := ascii(c);
            r := r || CASE
              WHEN c = '' THEN ''
              WHEN c = '\\' THEN '\\\\'
              WHEN c = '"' THEN '\\"'
              WHEN c = '''' THEN '\\'''
              WHEN code = 10 THEN '\\n'
              WHEN code = 9 THEN '\\t'
              WHEN code = 13 THEN '\\r'
              WHEN code < 32 OR code = 127 THEN '\\u{' || to_hex(code) || '}'
              ELSE c END;
          END LOOP;
          RETURN '"' || r || '"';
        END
        $bk$
        """
    }

    /// `bk_regex_escape_reason(e)`: PostgreSQLRegex.escapeReason.
    static func escapeReason(_ s: String) -> String {
        let outside = literal(PostgreSQLRegex.outside)
        return """
        CREATE OR REPLACE FUNCTION \(s).bk_regex_escape_reason(e text) RETURNS text
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE \(pinned)
        AS $bk$ SELECT CASE
            WHEN e IN ('p', 'P') THEN '\\' || e || ' (a Unicode property)'
            WHEN e IN ('1', '2', '3', '4', '5', '6', '7', '8', '9') THEN '\\' || e || ' (a back reference)'
            WHEN e IN ('b', 'B') THEN '\\' || e || ' (a word boundary)'
            WHEN e IN ('A', 'z', 'Z', 'G') THEN '\\' || e || ' (an anchor other than ^ and $)'
            WHEN e IN ('Q', 'E') THEN '\\' || e || ' (quoting)'
            ELSE 'the escape \\' || e END || \(outside) $bk$
        """
    }

    /// `bk_regex_group_reason(next)`: PostgreSQLRegex.groupReason, `next` the two characters after `(?`.
    static func groupReason(_ s: String) -> String {
        let outside = literal(PostgreSQLRegex.outside)
        return """
        CREATE OR REPLACE FUNCTION \(s).bk_regex_group_reason(next text) RETURNS text
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE \(pinned)
        AS $bk$ SELECT CASE
            WHEN left(next, 1) IN ('=', '!') THEN '(?' || left(next, 1) || ' (a look-ahead)'
            WHEN next IN ('<=', '<!') THEN '(?<' || right(next, 1) || ' (a look-behind)'
            WHEN left(next, 1) IN ('<', 'P', '''') THEN 'a named group'
            WHEN left(next, 1) = '#' THEN '(?# (a comment)'
            WHEN left(next, 1) = '>' THEN '(?> (an atomic group)'
            ELSE '(? with options (only a leading (?i) and (?: are)' END || \(outside) $bk$
        """
    }

    /// `bk_regex_member(s, j, start)`: one member of a bracket expression at s[j] (PostgreSQLRegex.bracket's
    /// member()): the index after it, its scalar or its class (d, s, w), or why it is refused and where.
    static func regexMember(_ s: String) -> String {
        let outside = PostgreSQLRegex.outside
        return """
        CREATE OR REPLACE FUNCTION \(s).bk_regex_member(s text[], j integer, start integer,
            OUT next integer, OUT code integer, OUT class text, OUT why text, OUT why_at integer)
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE \(pinned)
        AS $bk$
        DECLARE
          c text := s[j];
          e text;
        BEGIN
          IF c = '[' THEN
            why := \(literal("a [ inside brackets (a nested set or a POSIX class; write \\[ for the character)" + outside)); why_at := j;
          ELSIF c = '-' THEN
            why := \(literal("a - in brackets that is not a range (write \\- for the character)" + outside)); why_at := j;
          ELSIF c = '&' AND s[j + 1] = '&' THEN
            why := \(literal("&& (a set intersection)" + outside)); why_at := j;
          ELSIF c = '\\' THEN
            e := s[j + 1];
            IF e IS NULL THEN
              why := \(literal("a [ without its ]" + outside)); why_at := start;
            ELSIF e IN ('d', 's', 'w') THEN
              class := e; next := j + 2;
            ELSIF e IN ('D', 'S', 'W') THEN
              why := '\\' || e || ' inside brackets' || \(literal(outside)); why_at := j;
            ELSIF e IN ('n', 't', 'r') THEN
              code := CASE e WHEN 'n' THEN 10 WHEN 't' THEN 9 ELSE 13 END; next := j + 2;
            ELSIF ascii(e) BETWEEN 33 AND 126 AND NOT (ascii(e) BETWEEN 48 AND 57 OR ascii(e) BETWEEN 65 AND 90 OR ascii(e) BETWEEN 97 AND 122) THEN
              code := ascii(e); next := j + 2;
            ELSE
              why := \(s).bk_regex_escape_reason(e); why_at := j;
            END IF;
          ELSE
            code := ascii(c); next := j + 1;
          END IF;
        END
        $bk$
        """
    }

    /// `bk_regex_single(s, i, classes)`: for the bracket expression at s[i], its one character and the index after
    /// its `]` when it holds one character after ICU's case closure (`[İ]`, `[ﬁ]`, `[xx]`, `[x-x]`, not `[k]`, whose
    /// closure is k K K): ICU compiles such a set as a literal character, which [c] then folds fully. NULLs for any
    /// other set, and for one outside the subset (bk_regex refuses it where it reads it).
    static func regexSingle(_ s: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(s).bk_regex_single(s text[], i integer, classes jsonb,
            OUT code integer, OUT next integer)
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE \(pinned)
        AS $bk$
        DECLARE
          n integer := array_length(s, 1);
          j integer := i + 1;
          m record;
          m2 record;
          one integer;
        BEGIN
          IF j > n OR s[j] IN ('^', ':') THEN RETURN; END IF;
          LOOP
            IF j > n THEN RETURN; END IF;
            IF s[j] = ']' THEN
              IF one IS NULL OR classes ? chr(one) THEN RETURN; END IF;
              code := one; next := j + 1; RETURN;
            END IF;
            m := \(s).bk_regex_member(s, j, i);
            IF m.why IS NOT NULL OR m.class IS NOT NULL THEN RETURN; END IF;
            IF s[j] = '&' AND s[m.next] = '-' THEN RETURN; END IF;
            j := m.next;
            IF j <= n AND s[j] = '-' THEN
              IF j + 1 > n OR s[j + 1] = ']' THEN RETURN; END IF;
              m2 := \(s).bk_regex_member(s, j + 1, i);
              IF m2.why IS NOT NULL OR m2.class IS NOT NULL OR m2.code <> m.code THEN RETURN; END IF;
              j := m2.next;
            END IF;
            IF one IS NOT NULL AND one <> m.code THEN RETURN; END IF;
            one := m.code;
          END LOOP;
        END
        $bk$
        """
    }

    /// `bk_regex_fold_run(run, classes, multi)`: under [c], a run of literal characters as ICU matches it: the text
    /// matched is any whose full case folding is the run's (ICU folds literal strings fully: "ss" matches "ß",
    /// "ﬁ" matches "FI"), one text character at a time: a character of the simple-folding class of the next
    /// folded scalar, or one whose folding is several scalars (`multi`: folding → the characters) that come next.
    static func regexFoldRun(_ s: String) -> String {
        let outside = PostgreSQLRegex.outside
        return """
        CREATE OR REPLACE FUNCTION \(s).bk_regex_fold_run(run text, classes jsonb, multi jsonb) RETURNS text
        LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE \(pinned)
        AS $bk$
        DECLARE
          f text := \(s).bk_fold(run, 5);
          fs text[] := regexp_split_to_array(f, '');
          n integer := length(f);
          parts text[];
          alt text;
          branches boolean;
          e record;
        BEGIN
          parts[n + 1] := '';
          FOR i IN REVERSE n .. 1 LOOP
            alt := coalesce('[' || (classes ->> fs[i]) || ']', \(s).bk_are_escape(ascii(fs[i]))) || parts[i + 1];
            branches := false;
            FOR e IN SELECT key, value FROM jsonb_each_text(multi) WHERE substr(f, i, length(key)) = key LOOP
              alt := alt || '|[' || e.value || ']' || parts[i + length(e.key)];
              branches := true;
            END LOOP;
            parts[i] := CASE WHEN branches THEN '(?:' || alt || ')' ELSE alt END;
            IF length(parts[i]) > 100000 THEN
              RAISE EXCEPTION USING ERRCODE = '2201B', MESSAGE = 'invalid regular expression ' || \(s).bk_debug_quote(run)
                || ': ' || \(literal("a run of literal characters whose case foldings branch too often" + outside));
            END IF;
          END LOOP;
          RETURN '(?:' || parts[1] || ')';
        END
        $bk$
        """
    }

    /// `bk_regex(p, flags)`: the ARE that answers for the MATCHES pattern p as ICU does (PostgreSQLRegex.swift's
    /// subset), anchored to the whole text; for a pattern outside the subset, TextRegexError's message naming the
    /// construct and its place. Walks the pattern as PostgreSQLRegex.check does, step for step.
    static func regexFunction(_ s: String, _ t: PostgreSQLUnicodeTables) -> String {
        let outside = PostgreSQLRegex.outside
        let terminators = "\\u000a-\\u000d\\u0085\\u2028\\u2029"
        let terminatorsButLF = "\\u000b-\\u000d\\u0085\\u2028\\u2029"
        var classes = "{"
        for (index, (scalar, members)) in t.simpleCaseClasses.enumerated() {
            if index > 0 { classes += "," }
            let key = String(Character(scalar))
            classes += "\"\(key)\":\"" + members.map { "\\" + PostgreSQLUnicodeTables.escape($0.value) }.joined() + "\""
        }
        classes += "}"
        var foldings: [String: [Unicode.Scalar]] = [:]
        for (scalar, folded) in t.multi { foldings[scalars(folded), default: []].append(scalar) }
        let multi = "{" + foldings.keys.sorted().map { key in
            "\"\(key)\":\"" + foldings[key]!.map { "\\" + PostgreSQLUnicodeTables.escape($0.value) }.joined() + "\""
        }.joined(separator: ",") + "}"
        let digits = PostgreSQLUnicodeTables.bracketBody(t.digits)
        let spaces = PostgreSQLUnicodeTables.bracketBody(t.spaces)
        let words = PostgreSQLUnicodeTables.bracketBody(t.wordCharacters)
        return """
        CREATE OR REPLACE FUNCTION \(s).bk_regex(p text, flags integer) RETURNS text
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE \(pinned)
        AS $bk$
        DECLARE
          q text;
          s text[];
          n integer;
          i integer := 1;
          ci boolean := coalesce(flags, 0) & 1 <> 0;
          r text := '';
          c text;
          e text;
          can_quantify boolean := false;
          opens integer[] := '{}';
          why text;
          at integer;
          classes jsonb;
          multi jsonb;
          body text;
          neg boolean;
          members integer;
          j integer;
          m record;
          m2 record;
          low integer;
          high integer;
          comma boolean;
          digits_seen boolean;
          dash integer;
          first integer;
          run text;
          one record;
          item text;
          k integer;
        BEGIN
          IF p IS NULL THEN RETURN NULL; END IF;
          q := CASE WHEN coalesce(flags, 0) & 2 <> 0 THEN \(s).bk_fold(p, 2) ELSE p END;
          IF q = '' THEN RETURN '^(?:)$'; END IF;
          s := regexp_split_to_array(q, '');
          n := array_length(s, 1);
          IF n >= 4 AND s[1] = '(' AND s[2] = '?' AND s[3] = 'i' AND s[4] = ')' THEN ci := true; i := 5; END IF;
          -- (A pattern of ASCII punctuation and digits needs no case classes, unless a range may span letters: [!-~].)
          IF ci AND (q ~ '[^\\u0001-\\u0040\\u005b-\\u0060\\u007b-\\u007f]' OR strpos(q, '-') > 0) THEN
            classes := \(literal(classes))::jsonb;
            multi := \(literal(multi))::jsonb;
          END IF;
          <<scan>>
          WHILE i <= n LOOP
            c := s[i];
            IF c = '\\' THEN
              IF i = n THEN at := i; why := \(literal("a \\ at the end" + outside)); EXIT scan; END IF;
              e := s[i + 1];
              IF e IN ('d', 'D') THEN r := r || CASE WHEN e = 'd' THEN '[' ELSE '[^' END || \(literal(digits)) || ']';
              ELSIF e IN ('s', 'S') THEN r := r || CASE WHEN e = 's' THEN '[' ELSE '[^' END || \(literal(spaces)) || ']';
              ELSIF e IN ('w', 'W') THEN r := r || CASE WHEN e = 'w' THEN '[' ELSE '[^' END || \(literal(words)) || ']';
              ELSIF e IN ('n', 't', 'r') THEN r := r || '\\' || e;
              ELSIF ascii(e) BETWEEN 33 AND 126 AND NOT (ascii(e) BETWEEN 48 AND 57 OR ascii(e) BETWEEN 65 AND 90 OR ascii(e) BETWEEN 97 AND 122) THEN
                r := r || \(s).bk_are_escape(ascii(e));
              ELSE
                at := i; why := \(s).bk_regex_escape_reason(e); EXIT scan;
              END IF;
              i := i + 2; can_quantify := true;
            ELSIF c = '[' AND (multi IS NULL OR (\(s).bk_regex_single(s, i, classes)).code IS NULL) THEN
              j := i + 1; neg := false; body := ''; members := 0;
              IF j <= n AND s[j] = '^' THEN neg := true; j := j + 1; END IF;
              IF j <= n AND s[j] = ':' THEN
                at := j; why := \(literal("a : first in brackets (ICU reads [:name:] as a Unicode property; write \\: for the character)" + outside)); EXIT scan;
              END IF;
              LOOP
                IF j > n THEN at := i; why := \(literal("a [ without its ]" + outside)); EXIT scan; END IF;
                IF s[j] = ']' THEN
                  IF members = 0 THEN at := j; why := \(literal("an empty [] (write \\] for the character)" + outside)); EXIT scan; END IF;
                  EXIT;
                END IF;
                first := j;
                m := \(s).bk_regex_member(s, j, i);
                IF m.why IS NOT NULL THEN at := m.why_at; why := m.why; EXIT scan; END IF;
                j := m.next;
                IF j <= n AND s[j] = '-' THEN
                  dash := j;
                  IF j + 1 > n OR s[j + 1] = ']' OR m.class IS NOT NULL THEN
                    at := dash; why := \(literal("a - in brackets that is not a range (write \\- for the character)" + outside)); EXIT scan;
                  END IF;
                  IF s[first] = '&' THEN
                    at := first; why := \(literal("a range from an unescaped & (write \\& for the character)" + outside)); EXIT scan;
                  END IF;
                  m2 := \(s).bk_regex_member(s, j + 1, i);
                  IF m2.why IS NOT NULL THEN at := m2.why_at; why := m2.why; EXIT scan; END IF;
                  IF m2.class IS NOT NULL THEN
                    at := dash; why := \(literal("a - in brackets that is not a range (write \\- for the character)" + outside)); EXIT scan;
                  END IF;
                  IF m.code > m2.code THEN
                    at := first;
                    why := \(literal("a range whose ends are out of order" + outside)); EXIT scan;
                  END IF;
                  body := body || \(s).bk_are_escape(m.code) || '-' || \(s).bk_are_escape(m2.code);
                  IF classes IS NOT NULL THEN
                    body := body || coalesce((SELECT string_agg(value, '') FROM jsonb_each_text(classes)
                                              WHERE ascii(key) BETWEEN m.code AND m2.code), '');
                  END IF;
                  j := m2.next;
                ELSIF m.class IS NOT NULL THEN
                  body := body || CASE m.class WHEN 'd' THEN \(literal(digits)) WHEN 's' THEN \(literal(spaces)) ELSE \(literal(words)) END;
                ELSE
                  body := body || \(s).bk_are_escape(m.code) || coalesce(classes ->> chr(m.code), '');
                END IF;
                members := members + 1;
              END LOOP;
              r := r || CASE WHEN neg THEN '[^' ELSE '[' END || body || ']';
              i := j + 1; can_quantify := true;
            ELSIF c = '(' THEN
              IF i < n AND s[i + 1] = '?' THEN
                IF i + 2 <= n AND s[i + 2] = ':' THEN
                  opens := opens || i; i := i + 3;
                ELSE
                  at := i; why := \(s).bk_regex_group_reason(coalesce(s[i + 2], '') || coalesce(s[i + 3], '')); EXIT scan;
                END IF;
              ELSE
                opens := opens || i; i := i + 1;
              END IF;
              r := r || '(?:'; can_quantify := false;
            ELSIF c = ')' THEN
              IF coalesce(array_length(opens, 1), 0) = 0 THEN at := i; why := \(literal("a ) without its (" + outside)); EXIT scan; END IF;
              opens := opens[1 : array_length(opens, 1) - 1];
              r := r || ')'; i := i + 1; can_quantify := true;
            ELSIF c IN ('|', '^', '$') THEN
              r := r || CASE c WHEN '|' THEN '|' WHEN '^' THEN '^'
                            -- $ holds at the end, before a CR LF or a line terminator that ends the text, but
                            -- never between CR and LF (this spelling keeps repeated $s within PostgreSQL's limits).
                            ELSE '(?:(?=(?:[\(terminatorsButLF)]|\\u000d\\u000a)?$)|(?<!\\u000d)(?=\\u000a$))' END;
              i := i + 1; can_quantify := false;
            ELSIF c IN ('*', '+', '?', '{') THEN
              IF NOT can_quantify THEN at := i; why := \(literal("a quantifier with nothing to repeat" + outside)); EXIT scan; END IF;
              IF c = '{' THEN
                j := i + 1; low := NULL; high := NULL; comma := false;
                WHILE j <= n AND s[j] BETWEEN '0' AND '9' LOOP low := least(coalesce(low, 0) * 10 + ascii(s[j]) - 48, 100000); j := j + 1; END LOOP;
                IF low IS NOT NULL AND j <= n AND s[j] = ',' THEN
                  comma := true; j := j + 1; digits_seen := false;
                  WHILE j <= n AND s[j] BETWEEN '0' AND '9' LOOP high := least(coalesce(high, 0) * 10 + ascii(s[j]) - 48, 100000); j := j + 1; END LOOP;
                ELSE
                  high := low;
                END IF;
                IF low IS NULL OR j > n OR s[j] <> '}' THEN
                  at := i; why := \(literal("a { that is not a quantifier {n}, {n,} or {n,m} (write \\{ for the character)" + outside)); EXIT scan;
                END IF;
                IF greatest(low, coalesce(high, 0)) > 255 THEN at := i; why := \(literal("a count above 255" + outside)); EXIT scan; END IF;
                IF high < low THEN at := i; why := \(literal("a quantifier {n,m} with m < n" + outside)); EXIT scan; END IF;
                r := r || '{' || low || CASE WHEN NOT comma THEN '' WHEN high IS NULL THEN ',' ELSE ',' || high END || '}';
                j := j + 1;
              ELSE
                r := r || c; j := i + 1;
              END IF;
              IF j <= n AND s[j] IN ('*', '+', '?', '{') THEN
                at := j; why := \(literal("a lazy or possessive quantifier (or a quantifier repeated)" + outside)); EXIT scan;
              END IF;
              i := j; can_quantify := false;
            ELSIF c IN (']', '}') THEN
              at := i; why := 'an unescaped ' || c || ' (write \\' || c || ' for the character)' || \(literal(outside)); EXIT scan;
            ELSIF multi IS NOT NULL AND c <> '.' THEN
              -- Under [c], ICU matches a run of literal characters by full case folding; a set of one character
              -- after its case closure ([İ], [ﬁ]) is a literal character of the run there, and a quantified
              -- character is a run of its own.
              j := i; run := '';
              LOOP
                EXIT WHEN j > n;
                IF s[j] = '[' THEN
                  one := \(s).bk_regex_single(s, j, classes);
                  EXIT WHEN one.code IS NULL;
                  item := chr(one.code); k := one.next;
                ELSIF s[j] IN ('\\', ']', '(', ')', '{', '}', '|', '*', '+', '?', '.', '^', '$') THEN
                  EXIT;
                ELSE
                  item := s[j]; k := j + 1;
                END IF;
                IF k <= n AND s[k] IN ('*', '+', '?', '{') THEN
                  IF run = '' THEN run := item; j := k; END IF;
                  EXIT;
                END IF;
                run := run || item; j := k;
              END LOOP;
              r := r || \(s).bk_regex_fold_run(run, classes, multi);
              i := j; can_quantify := true;
            ELSE
              IF c = '.' THEN
                r := r || '[^\(terminators)]';
              ELSE
                r := r || CASE WHEN classes ? c THEN '[' || (classes ->> c) || ']' ELSE \(s).bk_are_escape(ascii(c)) END;
              END IF;
              i := i + 1; can_quantify := true;
            END IF;
          END LOOP;
          IF why IS NULL AND coalesce(array_length(opens, 1), 0) > 0 THEN
            at := opens[array_length(opens, 1)]; why := \(literal("a ( without its )" + outside));
          END IF;
          IF why IS NOT NULL THEN
            RAISE EXCEPTION USING ERRCODE = '2201B',
              MESSAGE = 'invalid regular expression ' || \(s).bk_debug_quote(q) || ': ' || why || ' (at character ' || at || ')';
          END IF;
          r := '^(?:' || r || ')$';
          -- PostgreSQL limits a compiled pattern's size: one that passes it is refused here, by the pattern, as
          -- outside the subset (never "regular expression is too complex" from the match, with no pattern named).
          BEGIN
            PERFORM '' ~ r;
          EXCEPTION WHEN invalid_regular_expression THEN
            RAISE EXCEPTION USING ERRCODE = '2201B',
              MESSAGE = 'invalid regular expression ' || \(s).bk_debug_quote(q) || ': '
                || \(literal("a pattern too complex for PostgreSQL's regular expressions once translated (repeated groups that hold $ or ^ often are)" + outside))
                || ' (at character 1)';
          END;
          RETURN r;
        END
        $bk$
        """
    }

    /// `bk_matches(x, p, flags)`: 1 when the whole of x matches the pattern as ICU decides, else 0 (also for a
    /// NULL); inlined, so that bk_regex runs once for a constant or bound pattern.
    static func matches(_ s: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(s).bk_matches(x text, p text, flags integer) RETURNS integer
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN CASE WHEN (CASE WHEN coalesce(flags, 0) OPERATOR(pg_catalog.&) 2 OPERATOR(pg_catalog.<>) 0
                               THEN \(s).bk_fold(x, 2) ELSE x END)
                         OPERATOR(pg_catalog.~) \(s).bk_regex(p, flags) THEN 1 ELSE 0 END
        """
    }

    // MARK: - LIKE

    /// `bk_like_pattern(p, flags)`: for a folded pattern of ASCII without CR, PostgreSQL's LIKE pattern (`*` → `%`,
    /// `?` → `_`, `%`, `_` and `\\` escaped); else NULL (bk_like_regex then answers).
    static func likePattern(_ s: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(s).bk_like_pattern(p text, flags integer) RETURNS text
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE \(pinned)
        AS $bk$ SELECT CASE WHEN octet_length(f) = length(f) AND strpos(f, E'\\r') = 0
                            THEN translate(regexp_replace(f, '([\\\\%_])', '\\\\\\1', 'g'), '*?', '%_') END
                FROM (SELECT \(s).bk_fold(p, flags) AS f) AS folded $bk$
        """
    }

    /// `bk_like_regex(p, flags)`: an ARE over the NFC form of the folded text, in which `?` is one grapheme
    /// cluster (as Swift's Character), `*` any run, and each other character of the NFC folded pattern itself,
    /// ending where a character ends.
    static func likeRegex(_ s: String, _ t: PostgreSQLUnicodeTables) -> String {
        let ext = PostgreSQLUnicodeTables.bracketBody(t.extending)
        let ctrl = PostgreSQLUnicodeTables.bracketBody(t.controls)
        let pict = PostgreSQLUnicodeTables.bracketBody(t.pictographs)
        let ri = "\\U0001f1e6-\\U0001f1ff"
        let otherControls = PostgreSQLUnicodeTables.bracketBody(
            t.controls.flatMap { range in range.filter { $0 != 0x0A && $0 != 0x0D } }.map { $0...$0 })
        // CR LF is one character; a CR or an LF alone is one too, but never half of a CR LF.
        let cluster = "(?:\\u000d\\u000a|\\u000d(?!\\u000a)|(?<!\\u000d)\\u000a|[\(otherControls)]"
            + "|[\(pict)](?:[\(ext)]*\\u200d[\(pict)])*[\(ext)]*(?![\(ext)])(?:(?<!\\u200d)|(?![\(pict)]))"
            + "|(?:[\(ri)][\(ri)]|[\(ri)](?![\(ri)])|(?<![^\(ctrl)])[\(ext)]|[^\(ctrl)\(ext)\(ri)])[\(ext)]*(?![\(ext)]))"
        return """
        CREATE OR REPLACE FUNCTION \(s).bk_like_regex(p text, flags integer) RETURNS text
        LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE \(pinned)
        AS $bk$
        DECLARE
          f text := normalize(\(s).bk_fold(p, flags), NFC);
          r text := '';
          piece text;
          whole text := '';
          code integer;
        BEGIN
          FOR piece IN SELECT m[1] FROM regexp_matches(f, \(literal("(" + cluster + ")")), 'g') AS m LOOP
            whole := whole || piece;
            IF piece = '*' THEN r := r || '.*';
            ELSIF piece = '?' THEN r := r || \(literal(cluster));
            ELSE
              IF left(piece, 1) = E'\\n' THEN r := r || '(?<!\\u000d)'; END IF;
              FOREACH code IN ARRAY (SELECT array_agg(ascii(c)) FROM regexp_split_to_table(piece, '') AS c) LOOP
                r := r || \(s).bk_are_escape(code);
              END LOOP;
              -- A character starts and ends where the text's do: an LF not after a CR, a CR not before an LF, and
              -- no extending scalar after it (after a control, none joins).
              IF right(piece, 1) = E'\\r' THEN r := r || '(?!\\u000a)';
              ELSIF right(piece, 1) !~ \(literal("[" + ctrl + "]")) THEN r := r || \(literal("(?![" + ext + "])")); END IF;
            END IF;
          END LOOP;
          IF whole <> f THEN RAISE EXCEPTION 'bk_like_regex: % is not cut into characters', f; END IF;
          RETURN '^' || r || '$';
        END
        $bk$
        """
    }

    /// `bk_like_apply(t, pattern, re)`: t folded; PostgreSQL's LIKE when t and the pattern are ASCII without CR
    /// (a byte is a character), else the ARE over t's NFC form.
    static func likeApply(_ s: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(s).bk_like_apply(t text, pattern text, re text) RETURNS integer
        LANGUAGE sql IMMUTABLE PARALLEL SAFE \(pinned)
        AS $bk$ SELECT CASE WHEN t IS NULL OR re IS NULL THEN 0
                            WHEN pattern IS NOT NULL AND octet_length(t) = length(t) AND strpos(t, E'\\r') = 0
                            THEN (t COLLATE "C" LIKE pattern COLLATE "C")::integer
                            ELSE (normalize(t, NFC) ~ re)::integer END $bk$
        """
    }

    /// `bk_like(x, p, flags)`: TextLikePattern.likeMatch on the folded sides; inlined, so that the pattern is
    /// translated once for a constant or bound pattern.
    static func like(_ s: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(s).bk_like(x text, p text, flags integer) RETURNS integer
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN \(s).bk_like_apply(\(s).bk_fold(x, coalesce(flags, 0)), \(s).bk_like_pattern(p, coalesce(flags, 0)),
                                   \(s).bk_like_regex(p, coalesce(flags, 0)))
        """
    }
}
