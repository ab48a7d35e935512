/// What a stage's inputs were when it read them, kept in its depfile, and the check make runs
/// before it decides anything (`fieldpack-pipeline changed-inputs`).
///
/// make compares modification times alone, and a dump put in an input's place with an older time
/// is taken as read already: `cp -p` or `rsync -a --inplace` of a new monthly dump (its time the
/// day it was published, before the last build), or a link such as `current -> 2024-11/` turned
/// to `2024-12/`, whose files are older than the last build. make said "Nothing to be done" and
/// the last guide was shipped again. So each input's identity as the stage found it (its inode,
/// size, modification and change times, following links as make does) is written into the
/// depfile as comments, and a target whose inputs are no longer those files is made again. The
/// change time is the kernel's and no one can set it back. Not the device number: on NFS or
/// Lustre it differs from node to node, where Slurm's tasks run make.
extension Depfile {
    /// The inputs' identities, taken before the stage reads them: a file changed while it read
    /// it is then told as changed at the next make.
    public struct Identities: Sendable {
        fileprivate let byPath: [String: String]

        /// The identities of `paths` now.
        public static func take(_ paths: [String]) -> Identities {
            var byPath = [String: String]()
            for path in paths where byPath[path] == nil { byPath[path] = Depfile.identity(path) }
            return Identities(byPath: byPath)
        }
    }

    /// How a line of identity starts, after which come the inode, size, modification and change
    /// times (nanoseconds) and the path, separated by tabs (a path never holds one: `check`).
    static let identityMark = "#@\t"

    /// A path's identity as a depfile keeps it: `-` fields for one that cannot be looked at.
    static func identity(_ path: String) -> String {
        guard let file = FileIdentity(path: path) else { return "-\t-\t-\t-" }
        return "\(file.inode)\t\(file.size)\t\(file.modified)\t\(file.changed)"
    }

    /// The lines of identity for `prerequisites`: taken before the stage read them, or now.
    static func identityLines(_ prerequisites: [String], taken: Identities?) -> String {
        var text = "# The inputs as they were read (inode, size, modified and changed in ns), for fieldpack-pipeline changed-inputs:\n"
        for path in prerequisites {
            text += "\(identityMark)\(taken?.byPath[path] ?? identity(path))\t\(path)\n"
        }
        return text
    }

    /// The targets, as make spells them in a rule, of those `depfiles` that name an input that
    /// is no longer the file the stage read (another inode, size or time). A depfile that is not
    /// there, or was written without identities, names none (make's own rules stand).
    ///
    /// Read as bytes, each path looked at once however many depfiles name it: every make runs
    /// it, and a sharded build's depfiles each name every input (64 depfiles of 5,051 inputs
    /// each, by hand: 2.8 s split into strings, 0.24 s so).
    public static func changedTargets(_ depfiles: [String]) -> [String] {
        let mark = Array(identityMark.utf8)
        var now = [String: [UInt8]]()
        var targets = [String]()
        for depfile in depfiles {
            guard let bytes = try? ReadableFile.contents(ofRegular: depfile) else { continue }
            // The rule's first line: the target, its colon and, with prerequisites, " \".
            var first = bytes.prefix { $0 != 0x0A }
            if first.count >= 2 && first.suffix(2).elementsEqual(" \\".utf8) { first.removeLast(2) }
            guard first.last == UInt8(ascii: ":") else { continue }
            let target = String(decoding: first.dropLast(), as: UTF8.self)
            var changed = false
            var start = first.endIndex
            while start < bytes.endIndex && !changed {
                let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.endIndex
                defer { start = end + 1 }
                let line = bytes[start..<end]
                guard line.starts(with: mark) else { continue }
                // The inode, size and times, then the path (which may hold no tab).
                var tabs = 0
                guard let pathStart = line.dropFirst(mark.count).firstIndex(where: {
                    if $0 == 0x09 { tabs += 1 }
                    return tabs == 4
                }) else { continue }
                let path = String(decoding: line[(pathStart + 1)...], as: UTF8.self)
                let current: [UInt8]
                if let known = now[path] {
                    current = known
                } else {
                    current = Array(identity(path).utf8)
                    now[path] = current
                }
                changed = !line[(line.startIndex + mark.count)..<pathStart].elementsEqual(current)
            }
            if changed { targets.append(target) }
        }
        return targets
    }
}
