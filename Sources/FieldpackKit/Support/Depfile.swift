/// A make depfile (`-include`d by the Makefile): `target` depends on every prerequisite, each also
/// listed as a target of its own so that make does not fail when one is deleted.
public enum Depfile {
    /// Refuses a path make cannot read in a rule: a tab, a line feed or a carriage return, which
    /// no escape carries (a line break ended the rule and every later make stopped on "missing
    /// separator"; a tab split the name in two, so every make ran every stage again). A stage
    /// that writes a depfile asks before it reads anything.
    ///
    /// Likewise a path that ends in `)`, which make reads as an archive's member (`lib(member)`)
    /// even once its parentheses are written as wildcards (a folder `Madeira (2024)` stopped the
    /// first make on "No rule to make target", or made every make run every stage again), and a
    /// backslash, which escapes what follows it in make's own way (`x\#y` began a comment; a
    /// name ending in one, a rule without its colon).
    ///
    /// - Throws: naming the first such path.
    public static func check(_ paths: [String]) throws {
        for path in paths {
            let reason: String
            if path.utf8.contains(where: { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
                reason = "holds a tab or a line break, which no escape carries"
            } else if path.utf8.last == UInt8(ascii: ")") {
                reason = "ends in a parenthesis, which make reads as an archive's member"
            } else if path.utf8.contains(UInt8(ascii: "\\")) {
                reason = "holds a backslash, which make reads as an escape"
            } else {
                continue
            }
            throw FieldpackError(
                path: path.debugDescription,
                "\(reason): make cannot name it in a rule (the stage's depfile); rename it, or leave it out of the inputs")
        }
    }

    /// Writes the depfile: the rule, an empty rule for each prerequisite, and each prerequisite's
    /// identity (`Identities`), as `taken` before the stage read it, or as it is now. A folder
    /// (one walked for inputs, a glob's) is named by its identity alone, not in the rule: make
    /// would take its time, which a note or a hidden file added beside the dumps moves. Its
    /// identity is its listing: of a walked folder the names a walk reads, of a glob's every
    /// name not hidden (`identity(_:walked:)`).
    ///
    /// - Parameter keyed: files named by what the stage read of them alone (`Keyed`), not in the
    ///   rule either: the pipeline file, of which a stage before the bundle reads a few keys, so
    ///   that an edit of the others (a display target, a licence) no longer reran ingest of the
    ///   whole dump.
    public static func write(_ path: String, target: String, prerequisites: [String], keyed: [String: Keyed] = [:], taken: Identities? = nil) throws {
        let keyedPaths = keyed.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        try check([target] + prerequisites + keyedPaths)
        let ruled = prerequisites.filter { keyed[$0] == nil && !FileSystem.isDirectory($0) }
        // As make reads a rule: a space, `#` (a comment) and `:` (a rule's colon) escaped with a
        // backslash, `$` doubled; in a target, `%` too (an empty rule for `a%b.json` would be a
        // pattern rule, and a deleted input would stop make), which a prerequisite takes as it is.
        // Dumps named by their time (`…T02:00:00Z.json`) are common. `;`, `|` and `=` cannot be
        // escaped (a recipe, order-only prerequisites, a variable): each is written `?`, a
        // wildcard make expands to the file, which at worst also names a neighbour; so are `[`,
        // `]`, `*` and `?`, make's own wildcards, so that the name's glob matches the name, and
        // `(` and `)`, which would open an archive's member list (`obs (1).json`, a browser's
        // second download, works so; a path ending in `)` is refused by `check`).
        func escape(_ text: String, target: Bool) -> String {
            // By scalar: a combining mark after a space or `:` must not hide it in one Character.
            var escaped = String.UnicodeScalarView()
            for scalar in text.unicodeScalars {
                switch scalar {
                case " ", "#", ":": escaped.append("\\"); escaped.append(scalar)
                case "$": escaped.append("$"); escaped.append("$")
                case "%" where target: escaped.append("\\"); escaped.append(scalar)
                // And make's own wildcards, which would otherwise glob with the `?`s beside them.
                case ";", "|", "=", "[", "]", "*", "?", "(", ")": escaped.append("?")
                default: escaped.append(scalar)
                }
            }
            return String(escaped)
        }
        var text = "\(escape(target, target: true)):"
        for prerequisite in ruled { text += " \\\n  \(escape(prerequisite, target: false))" }
        text += "\n"
        for prerequisite in ruled { text += "\(escape(prerequisite, target: true)):\n" }
        text += identityLines(prerequisites.filter { keyed[$0] == nil }, taken: taken)
        text += keyedLines(keyedPaths.map { ($0, keyed[$0]!) }, pending: taken?.isPending ?? false)
        try AtomicOutput.write(text, to: path)
    }
}
