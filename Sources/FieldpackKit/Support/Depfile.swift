/// A make depfile (`-include`d by the Makefile): `target` depends on every prerequisite, each also
/// listed as a target of its own so that make does not fail when one is deleted.
public enum Depfile {
    public static func write(_ path: String, target: String, prerequisites: [String]) throws {
        func escape(_ text: String) -> String {
            text.replacingOccurrences(of: " ", with: "\\ ").replacingOccurrences(of: "$", with: "$$")
        }
        var text = "\(escape(target)):"
        for prerequisite in prerequisites { text += " \\\n  \(escape(prerequisite))" }
        text += "\n"
        for prerequisite in prerequisites { text += "\(escape(prerequisite)):\n" }
        try AtomicOutput.write(text, to: path)
    }
}
