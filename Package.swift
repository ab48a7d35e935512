// swift-tools-version:6.0
import PackageDescription

// One library holds all the logic; each stage is a thin executable over it.
let stages = ["inat", "dedupe", "wiki", "bundle", "report", "manifest", "verify", "synth", "sanitize", "pipeline"]

let package = Package(
    name: "fieldpack",
    products: stages.map { .executable(name: "fieldpack-\($0)", targets: ["fieldpack-\($0)"]) },
    targets: [
        .systemLibrary(name: "CSQLite3", path: "Sources/CSQLite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CLibXML2", path: "Sources/CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(
            name: "CCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        // ISA-L's igzip inflates every gzip input (`GzipSource`).
        .systemLibrary(name: "CISAL", path: "Sources/CISAL", pkgConfig: "libisal", providers: [.apt(["libisal-dev"])]),
        .systemLibrary(
            name: "CArchive", path: "Sources/CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        // Linux system calls Swift's Glibc module leaves out (renameat2).
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        .target(
            name: "CSimdJSON", path: "Sources/CSimdJSON",
            cxxSettings: [.unsafeFlags(["-O3", "-std=c++17"])],
            linkerSettings: [.linkedLibrary("simdjson")]),
        // jemalloc's options for the wiki stage (its `malloc_conf`), linked into that executable only.
        .target(name: "CWikiAllocator", path: "Sources/CWikiAllocator"),
        .target(
            name: "FieldpackKit",
            dependencies: ["CSQLite3", "CLibXML2", "CCrypto", "CISAL", "CArchive", "CSimdJSON", "CLinux"],
            path: "Sources/FieldpackKit",
            exclude: ["Bundle/Migrations.lock.json"]),
        // The benchmark's tools (synthetic dumps, the parser-alone rate): beside the shipped
        // library, not in it.
        .target(name: "FieldpackSynth", dependencies: ["FieldpackKit", "CArchive"], path: "Sources/FieldpackSynth"),
        // What the tests share (temporary folders, running the built executables, small builds).
        .target(name: "FieldpackTestSupport", dependencies: ["FieldpackKit"], path: "Tests/FieldpackTestSupport"),
    ] + stages.map {
        // The wiki stage builds and frees millions of small libxml2 nodes: jemalloc (Debian's
        // libjemalloc-dev) makes that about 17% faster than glibc's malloc.
        .executableTarget(
            name: "fieldpack-\($0)",
            dependencies: $0 == "synth" ? ["FieldpackKit", "FieldpackSynth"] : $0 == "wiki" ? ["FieldpackKit", "CWikiAllocator"] : ["FieldpackKit"],
            path: "Sources/fieldpack-\($0)",
            linkerSettings: $0 == "wiki" ? [.linkedLibrary("jemalloc")] : [])
    } + [
        .testTarget(
            name: "FieldpackKitTests", dependencies: ["FieldpackKit", "FieldpackSynth", "FieldpackTestSupport"],
            path: "Tests/FieldpackKitTests", exclude: ["Golden", "Fixtures"]),
    ],
    cxxLanguageStandard: .cxx17
)
