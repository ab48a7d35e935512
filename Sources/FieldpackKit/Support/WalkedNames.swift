/// Which names in an input folder the stages read: not hidden (`.…`), and not a note (`*.md`,
/// `*.txt`). One definition for the walk (`Pipeline.resolve`), the outputs it refuses inside a
/// walked folder, and a folder's identity in a depfile (`Depfile`), so that a note or a hidden
/// file added beside the dumps reruns nothing.
public enum WalkedNames {
    public static func isRead(_ name: String) -> Bool {
        !name.hasPrefix(".") && !name.hasSuffix(".md") && !name.hasSuffix(".txt")
    }
}
