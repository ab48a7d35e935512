/// Where sentences end in UTF-8 text of any script: the one definition used by the stub rule,
/// the cut-paragraph rule and the summary.
///
/// A sentence ends at a terminal mark — `.` `!` `?`, CJK `。` `！` `？` `．`, Arabic `؟` `۔`,
/// Devanagari `।` `॥`, Armenian `։`, Ethiopic `።`, Burmese `။`, Khmer `។` `៕` — optionally
/// followed by closing quotes or brackets (`."`, `.»`, `.)`, `.”`, German `.“` and `.‘`, Danish
/// `.«`, `。」`). Inside a text, a mark ends a sentence when the text ends there, or a space
/// follows (CJK, Burmese and Khmer marks need none), and, after `.` `!` `?`, the next word does
/// not start with a lower-case letter (`e.g. the`) and the `.` does not close an initial (`J. Smith`)
/// or an initialism (`U.S. Fish`, `J.-C.`), nor an abbreviation that never ends a sentence
/// (`e.g.`, `approx.`, `St.`, `Mt.`, French `av.` of `av. J.-C.`, German `z.` of `z. B.`:
/// `neverFinal`). A `.` closing a short word (one to four letters of a cased script) before a
/// number does not end one either (`c. 1758`, `ca. 12 cm`, `Nr. 5`, Russian `рис. 3`:
/// abbreviations), nor does one closing a German ordinal of one or two digits before a month
/// or a century (`am 3. Juni`, `im 19. Jahrhundert`: German writes those nouns in capitals) or
/// after an article or a preposition fused with one (`im 1. Lebensjahr`, `die 5. Handschwinge`:
/// no sentence ends on `im 1.`).
/// Byte loops over UTF-8; scalars are decoded only next to a mark.
enum SentenceEnds {
    /// The length of the terminal mark at `index`, or 0; `wide` when it is a CJK mark, which no
    /// space follows.
    static func terminal(in bytes: [UInt8], at index: Int) -> (length: Int, wide: Bool) {
        let byte = bytes[index]
        if byte == 0x2E || byte == 0x21 || byte == 0x3F { return (1, false) }
        guard byte >= 0xD6, index + 1 < bytes.count else { return (0, false) }
        let second = bytes[index + 1]
        switch byte {
        case 0xD6: return second == 0x89 ? (2, false) : (0, false)  // ։
        case 0xD8: return second == 0x9F ? (2, false) : (0, false)  // ؟
        case 0xDB: return second == 0x94 ? (2, false) : (0, false)  // ۔
        default: break
        }
        guard index + 2 < bytes.count else { return (0, false) }
        let third = bytes[index + 2]
        switch (byte, second) {
        case (0xE0, 0xA5) where third == 0xA4 || third == 0xA5: return (3, false)  // । ॥
        case (0xE1, 0x8D) where third == 0xA2: return (3, false)  // ።
        case (0xE1, 0x81) where third == 0x8B: return (3, true)  // ။ (Burmese writes no spaces between words)
        case (0xE1, 0x9F) where third == 0x94 || third == 0x95: return (3, true)  // ។ ៕ (nor does Khmer)
        case (0xE3, 0x80) where third == 0x82: return (3, true)  // 。
        case (0xEF, 0xBC) where third == 0x81 || third == 0x9F || third == 0x8E: return (3, true)  // ！ ？ ．
        default: return (0, false)
        }
    }

    /// The length of the closing quote or bracket at `index`, or 0: `"` `'` `)` `]` `»` `”` `’`
    /// `›`, the German and Czech `“` `‘` and the Danish `«` `‹` (which close `„…“`, `‚…‘`, `»…«`:
    /// right after a terminal mark they close, they cannot open), `」` `』` `》` `）`.
    static func closer(in bytes: [UInt8], at index: Int) -> Int {
        let byte = bytes[index]
        if byte == 0x22 || byte == 0x27 || byte == 0x29 || byte == 0x5D { return 1 }
        if byte == 0xC2, index + 1 < bytes.count, bytes[index + 1] == 0xBB || bytes[index + 1] == 0xAB { return 2 }
        // The Arabic letter mark (U+061C), invisible like the two below.
        if byte == 0xD8, index + 1 < bytes.count, bytes[index + 1] == 0x9C { return 2 }
        guard index + 2 < bytes.count else { return 0 }
        switch (byte, bytes[index + 1], bytes[index + 2]) {
        // The left-to-right and right-to-left marks (U+200E, U+200F), which right-to-left wikis
        // write after a mark (`.&rlm;`): invisible, they are passed over as a closer is.
        case (0xE2, 0x80, 0x8E), (0xE2, 0x80, 0x8F): return 3
        case (0xE2, 0x80, 0x9D), (0xE2, 0x80, 0x99), (0xE2, 0x80, 0xBA): return 3
        case (0xE2, 0x80, 0x9C), (0xE2, 0x80, 0x98), (0xE2, 0x80, 0xB9): return 3
        case (0xE3, 0x80, 0x8D), (0xE3, 0x80, 0x8F), (0xE3, 0x80, 0x8B): return 3
        case (0xEF, 0xBC, 0x89): return 3
        default: return 0
        }
    }

    /// The depth of brackets (`(` `[` `（` `【`, closed by their pairs) open at each of `offsets`
    /// (ascending byte offsets), in one pass: a sentence end inside brackets is an abbreviation
    /// taken for one far more often than a sentence (`(Gill et al.`, `(лат.`).
    static func bracketDepths(in bytes: [UInt8], at offsets: [Int]) -> [Int] {
        var depths: [Int] = []
        depths.reserveCapacity(offsets.count)
        var depth = 0
        var index = 0
        for offset in offsets {
            while index < offset {
                switch bytes[index] {
                case 0x28, 0x5B: depth += 1
                case 0x29, 0x5D: depth -= 1
                case 0xEF where index + 2 < bytes.count && bytes[index + 1] == 0xBC:
                    if bytes[index + 2] == 0x88 { depth += 1 } else if bytes[index + 2] == 0x89 { depth -= 1 }
                case 0xE3 where index + 2 < bytes.count && bytes[index + 1] == 0x80:
                    if bytes[index + 2] == 0x90 { depth += 1 } else if bytes[index + 2] == 0x91 { depth -= 1 }
                default: break
                }
                index += 1
            }
            depths.append(depth)
        }
        return depths
    }

    /// Whether the text leaves a bracket open (`bracketDepths`).
    static func leavesBracketOpen(_ bytes: [UInt8]) -> Bool {
        bracketDepths(in: bytes, at: [bytes.count])[0] > 0
    }

    /// Whether the text ends a sentence (trailing spaces ignored).
    static func endsSentence(_ bytes: [UInt8]) -> Bool {
        var end = bytes.count
        while end > 0 && bytes[end - 1] == 0x20 { end -= 1 }
        // Step back over closers, then look for a terminal ending exactly there.
        var index = end
        while index > 0 {
            let start = scalarStart(in: bytes, containing: index - 1)
            if closer(in: bytes, at: start) == index - start {
                index = start
                continue
            }
            return terminal(in: bytes, at: start).length == index - start
        }
        return false
    }

    /// The byte offsets just after each sentence end (after its closers), in order; the text's
    /// end is one when the text ends a sentence.
    static func offsets(in bytes: [UInt8]) -> [Int] {
        var ends: [Int] = []
        var index = 0
        let count = bytes.count
        while index < count {
            let (length, wide) = terminal(in: bytes, at: index)
            guard length > 0 else {
                index += 1
                continue
            }
            var after = index + length
            while after < count {
                let closing = closer(in: bytes, at: after)
                if closing == 0 { break }
                after += closing
            }
            if after == count || wide {
                ends.append(after)
            } else if bytes[after] == 0x20, after + 1 < count {
                let stop = bytes[index] == 0x2E && after == index + 1
                if length > 1 || !(startsLowercase(bytes, at: after + 1) || (stop && closesGeorgianAbbreviation(bytes, at: index))
                    || (bytes[index] == 0x2E && closesInitial(bytes, at: index))
                    || (stop && closesNeverFinal(bytes, at: index))
                    || (stop && InertTail.isDigit(bytes[after + 1]) && closesAbbreviation(bytes, at: index))
                    || (stop && closesOrdinal(bytes, at: index) && (startsOrdinalNoun(bytes, at: after + 1) || followsOrdinalArticle(bytes, at: index)))
                    || (stop && closesDateAbbreviation(bytes, at: index))
                    || (stop && closesSpanishEra(bytes, at: index, next: after + 1))
                    || (stop && closesUndottedAbbreviation(bytes, at: index, next: after + 1)))
                {
                    ends.append(after)
                }
            }
            index = after
        }
        return ends
    }

    /// Whether the `.` at `index` closes a short word of one to four letters of a cased script
    /// standing alone (`c.`, `ca.`, `Nr.`, `pp.`, `vol.`, Russian `рис.`), as an abbreviation
    /// before a number is written; not a longer word or a number, after which a sentence may
    /// well end before a numeral (`beschrieben. 1997 wurde`, `in 1758. 14 subspecies`), nor a
    /// word of a script without case (Korean `있다. 1758년`, Arabic `كلها. 14`), whose short
    /// words end sentences and which write no such abbreviations.
    private static func closesAbbreviation(_ bytes: [UInt8], at index: Int) -> Bool {
        let start = wordStart(before: index, in: bytes)
        guard start < index else { return false }
        var letters = 0
        var position = start
        while position < index {
            guard let scalar = scalar(in: bytes, at: position), scalar.properties.isCased else { return false }
            letters += 1
            position += scalar.utf8.count
        }
        return letters <= 4
    }

    /// Abbreviations after which a sentence practically never ends, whatever follows, compared
    /// with their first letter in either case: Latin ones (`e.g.`, `i.e.`, `cf.`, `viz.`, `vs.`,
    /// `approx.`, `incl.`, `esp.`), titles and place names (`St.`, `Mt.`, `Dr.`), French `av.`,
    /// `apr.` (`av. J.-C.`) and `env.`, German `z.` (`z. B.`) and `Mio.`, `Mrd.` (`75 Mio.
    /// Brutpaare`), Spanish `aprox.`, Russian `ок.` and `прибл.`; and the names of languages that
    /// open nearly every species article of the Cyrillic wikis and Polish, before the scientific
    /// name (`(лат. Parus major)`, `(łac. Parus major)`, `(от др.-греч. …)`): Russian,
    /// Ukrainian, Bulgarian, Serbian `лат.`, Belarusian `лац.`, `англ.`, `греч.`, `др.-греч.`,
    /// `нем.`, `франц.`, Polish `łac.`. Not `etc.` or `spp.`, which often do.
    private static let neverFinal: Set<[UInt8]> = Set([
        "e.g", "i.e", "cf", "viz", "vs", "approx", "incl", "esp", "st", "ste", "mt", "dr", "mr", "mrs", "prof", "av", "apr", "env",
        "z", "mio", "mrd", "aprox", "ок", "прибл", "лат", "лац", "англ", "греч", "др.-греч", "давн.-греч", "нем", "франц", "łac",
    ].map { Array($0.utf8) })

    /// German abbreviations that a capital noun follows, as one starts a sentence:
    /// beziehungsweise, sogenannt, vergleiche, gegebenenfalls, eventuell, geboren. In lower case
    /// only: `Geb.` is an Egyptian god, ending a sentence.
    private static let neverFinalLowercase: Set<[UInt8]> = Set(["bzw", "sog", "vgl", "ggf", "evtl", "geb"].map { Array($0.utf8) })

    /// Whether the `.` at `index` closes the Spanish `a.` or `d.` of `a. C.` and `d. C.` (antes,
    /// después de Cristo: `siglo VIII a. C.`), whose `C.` follows at `next`; the `.` of `C.` may
    /// well end one, as German `v. Chr.`'s does.
    private static func closesSpanishEra(_ bytes: [UInt8], at index: Int, next: Int) -> Bool {
        // (And `closesInitial` lets that `C.` end one.)
        guard index >= 1, bytes[index - 1] == UInt8(ascii: "a") || bytes[index - 1] == UInt8(ascii: "d"),
              index == 1 || bytes[index - 2] == 0x20, next + 1 < bytes.count
        else { return false }
        return bytes[next] == UInt8(ascii: "C") && bytes[next + 1] == UInt8(ascii: ".")
    }

    /// Whether the `.` at `index` belongs to a dotted abbreviation of a script that writes its
    /// sentence ends otherwise or not at all (`isShortWordOfUndottedScript`): a word of one or
    /// two letters that is dotted within (Thai `ค.ศ.`, Marathi `इ.स.`), or a pair of dotted words
    /// whose first is a bare letter, with no vowel sign or virama, as an initial is written
    /// (Hindi `ई. पू.`, before Christ). Not Korean, Arabic or Hebrew, which end sentences with
    /// `.` after words of any length; nor the short verbs that end sentences with `.` in
    /// Marathi, Gujarati, the Dravidian scripts and Sinhala (`आहे.`, `है.`, `છે.`, `ఉంది.`), which
    /// carry a vowel sign, before an initial or `डॉ.`.
    private static func closesUndottedAbbreviation(_ bytes: [UInt8], at index: Int, next: Int) -> Bool {
        // Those scripts are past ASCII: a Latin word's stop is passed at once.
        guard index > 0, bytes[index - 1] >= 0x80 else { return false }
        let start = wordStart(before: index, in: bytes)
        guard start < index else { return false }
        let segments = bytes[start..<index].split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.allSatisfy({ isShortWordOfUndottedScript($0) }) else { return false }
        if segments.count > 1 { return true }
        // This word a bare letter, the next one such a word and dotted.
        var end = next
        while end < bytes.count && bytes[end] != 0x20 && bytes[end] != UInt8(ascii: ".") { end += 1 }
        if isBareLetter(bytes[start..<index]), end < bytes.count, bytes[end] == UInt8(ascii: "."),
            isShortWordOfUndottedScript(bytes[next..<end])
        {
            return true
        }
        // The word before a bare letter, dotted.
        guard start >= 3, bytes[start - 1] == 0x20, bytes[start - 2] == UInt8(ascii: ".") else { return false }
        let before = wordStart(before: start - 2, in: bytes)
        return isBareLetter(bytes[before..<(start - 2)]) && isShortWordOfUndottedScript(bytes[before..<(start - 2)])
    }

    /// Whether `word` is one letter alone, with no mark (an initial: `ई`, `इ`, `स`).
    private static func isBareLetter(_ word: ArraySlice<UInt8>) -> Bool {
        guard !word.isEmpty, let letter = scalar(in: Array(word), at: 0) else { return false }
        return letter.utf8.count == word.count && letter.properties.generalCategory == .otherLetter
    }

    /// Whether `word` is one or two letters, with their marks (a Thai or Devanagari vowel sign is
    /// a scalar of its own), of a script whose sentences end with another mark (the Indic
    /// scripts' danda `।`, Tibetan's shad, Burmese `။`, Ethiopic `።`, Khmer `។`) or none (Thai,
    /// Lao): U+0900–U+109F, U+1200–U+137F, U+1780–U+17FF.
    private static func isShortWordOfUndottedScript(_ word: ArraySlice<UInt8>) -> Bool {
        let bytes = Array(word)
        var letters = 0
        var position = 0
        while position < bytes.count {
            guard let scalar = scalar(in: bytes, at: position) else { return false }
            let properties = scalar.properties
            let undotted = (0x0900...0x109F).contains(scalar.value) || (0x1200...0x137F).contains(scalar.value)
                || (0x1780...0x17FF).contains(scalar.value)
            guard undotted else { return false }
            switch properties.generalCategory {
            case .otherLetter: letters += 1
            case .nonspacingMark, .spacingMark: break
            default: return false
            }
            position += scalar.utf8.count
        }
        return (1...2).contains(letters)
    }

    /// Whether the text's last letter is of a script that marks no sentence end (Thai, Lao:
    /// sentences are parted by a space), so that a paragraph of it before a figure or a table
    /// is not taken for one cut short for want of a mark (the cut-paragraph rule).
    static func endsInUnmarkedScript(_ bytes: [UInt8]) -> Bool {
        var index = bytes.count
        while index > 0 {
            let start = scalarStart(in: bytes, containing: index - 1)
            if let scalar = scalar(in: bytes, at: start), scalar.properties.isAlphabetic {
                return (0x0E01...0x0EFF).contains(scalar.value)
            }
            index = start
        }
        return false
    }

    /// German abbreviations of two words, after whose second a sentence practically never ends:
    /// `u. a.` (unter anderem), `v. a.` (vor allem), `d. h.`, `u. ä.`, `s. o.` and `s. u.`: the
    /// first word → the second words it goes with. Not `v. Chr.` or `n. Chr.`, which often end
    /// one ("… 44 v. Chr. Danach …": German writes one full stop for both).
    private static let neverFinalPairs: [[UInt8]: Set<[UInt8]>] = [
        "u": ["a", "ä"], "v": ["a"], "d": ["h"], "s": ["o", "u"],
    ].reduce(into: [:]) { pairs, pair in pairs[Array(pair.key.utf8)] = Set(pair.value.map { Array($0.utf8) }) }

    /// Whether the `.` at `index` closes one of `neverFinal`, standing alone or after an
    /// elision (the `env` of `d'env.`), or the second word of one of `neverFinalPairs`.
    private static func closesNeverFinal(_ bytes: [UInt8], at index: Int) -> Bool {
        let start = wordStart(before: index, in: bytes, afterApostrophes: true)
        guard start < index, index - start <= 12, let first = scalar(in: bytes, at: start) else { return false }
        let lowered = String(first).lowercased()
        let word = Array(lowered.utf8) + bytes[(start + first.utf8.count)..<index]
        if neverFinal.contains(word) || neverFinalLowercase.contains(Array(bytes[start..<index])) { return true }
        // The word before: one space and its own `.` before this one (`u. a.`).
        guard start >= 3, bytes[start - 1] == 0x20, bytes[start - 2] == UInt8(ascii: ".") else { return false }
        let before = wordStart(before: start - 2, in: bytes)
        guard before < start - 2, let letter = scalar(in: bytes, at: before) else { return false }
        let previous = Array(String(letter).lowercased().utf8) + bytes[(before + letter.utf8.count)..<(start - 2)]
        return neverFinalPairs[previous]?.contains(word) ?? false
    }

    /// Where the word ending at `index` starts: after the last space, opening bracket or quote
    /// before it (`(`, `[`, `"`, `‘`, `“`, `„`, `«`), and with `afterApostrophes` after an
    /// apostrophe (`'`, `’`), or at the text's start. (Only an abbreviation is looked for after
    /// an elision: `l'eau. 12 espèces` ends a sentence.)
    private static func wordStart(before index: Int, in bytes: [UInt8], afterApostrophes: Bool = false) -> Int {
        var start = index
        while start > 0 {
            let byte = bytes[start - 1]
            if byte == 0x20 || byte == 0x28 || byte == 0x5B || byte == 0x22 || (afterApostrophes && byte == 0x27) { break }
            if start >= 3, bytes[start - 3] == 0xE2, bytes[start - 2] == 0x80,
                byte == 0x98 || byte == 0x9C || byte == 0x9E || (afterApostrophes && byte == 0x99)
            {
                break
            }
            if start >= 2, bytes[start - 2] == 0xC2, byte == 0xAB { break }
            start -= 1
        }
        return start
    }

    /// Whether the `.` at `index` closes a year's or a century's abbreviation right after a
    /// number or a Roman numeral and a space (`dateAbbreviations`: Russian `в 1758 г. Карлом
    /// Линнеем`, `в XIX в. Его`; Ukrainian `у 1758 р. Карл Лінней`, `XIX ст.`; Polish `w 1758 r.
    /// Karol Linneusz`, `XIX w.`): a describer's name follows them far more often than a
    /// sentence ends there, and a sentence cut at one loses its subject's author; one that does
    /// end there runs on into the next, which ends it. At the end of a paragraph it still ends one.
    private static func closesDateAbbreviation(_ bytes: [UInt8], at index: Int) -> Bool {
        let start = wordStart(before: index, in: bytes)
        guard start >= 2, index - start <= 4, bytes[start - 1] == 0x20, dateAbbreviations.contains(Array(bytes[start..<index])) else {
            return false
        }
        let before = bytes[start - 2]
        return InertTail.isDigit(before) || "IVXLCM".utf8.contains(before)
    }

    /// Year (`г.`, `гг.`; `р.`, `рр.`; `r.`) and century (`в.`, `вв.`; `ст.`; `w.`) after a number,
    /// in Russian, Ukrainian and Polish.
    private static let dateAbbreviations: Set<[UInt8]> = Set(["г", "гг", "в", "вв", "р", "рр", "ст", "r", "w"].map { Array($0.utf8) })

    /// Whether the `.` at `index` closes a number of one or two digits standing alone (`3.`,
    /// `19.`), as a German ordinal is written.
    private static func closesOrdinal(_ bytes: [UInt8], at index: Int) -> Bool {
        let start = wordStart(before: index, in: bytes)
        return (1...2).contains(index - start) && bytes[start..<index].allSatisfy(InertTail.isDigit)
    }

    /// The German words an ordinal comes before far more often than a sentence ends there: the
    /// months, and centuries and millennia.
    private static let ordinalNouns: [[UInt8]] = [
        "Januar", "Jänner", "Februar", "Feber", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
        "November", "Dezember", "Jahrhundert", "Jahrhunderts", "Jahrtausend", "Jahrtausends", "Jh",
    ].map { Array($0.utf8) }

    /// The German articles and prepositions fused with one that come right before an ordinal
    /// (`im 1. Lebensjahr`, `am 3. Tag`, `die 5. Handschwinge`, `des 2. Kalenderjahres`) and
    /// never before a number ending a sentence (`2 bis 4.`, `etwa 500.` do end one).
    private static let ordinalArticles: Set<[UInt8]> = Set([
        "im", "am", "vom", "zum", "zur", "beim", "ins", "ans", "der", "die", "das", "dem", "den", "des", "Im", "Am", "Vom",
        "Zum", "Zur", "Beim", "Der", "Die", "Das", "Dem", "Den", "Des", "ihrem", "ihrer", "ihres", "seinem", "seiner", "seines",
        "jedem", "jeder", "jedes",
    ].map { Array($0.utf8) })

    /// Whether the number the `.` at `index` closes follows one of `ordinalArticles` and a space.
    private static func followsOrdinalArticle(_ bytes: [UInt8], at index: Int) -> Bool {
        let numberStart = wordStart(before: index, in: bytes)
        guard numberStart >= 2, bytes[numberStart - 1] == 0x20 else { return false }
        let start = wordStart(before: numberStart - 1, in: bytes)
        return ordinalArticles.contains(Array(bytes[start..<(numberStart - 1)]))
    }

    /// Whether one of `ordinalNouns` starts at `index`, as a whole word.
    private static func startsOrdinalNoun(_ bytes: [UInt8], at index: Int) -> Bool {
        for word in ordinalNouns where index + word.count <= bytes.count {
            guard bytes[index..<(index + word.count)].elementsEqual(word) else { continue }
            let end = index + word.count
            // Followed by a space, punctuation or the end, never by more letters of a word.
            if end == bytes.count || bytes[end] < 0x80 && !InertTail.isLetter(bytes[end]) {
                return true
            }
        }
        return false
    }

    /// Whether the `.` at `index` closes a Georgian abbreviation: a word of one or two letters
    /// (`ქ.` city, `ს.` village, `ძვ.`), one dotted within (`ე.წ.` so-called), or one of
    /// `georgianAbbreviations`. Georgian writes no capitals at a sentence's start
    /// (`startsLowercase`), so these are told by themselves.
    private static func closesGeorgianAbbreviation(_ bytes: [UInt8], at index: Int) -> Bool {
        guard index >= 3, bytes[index - 3] == 0xE1, bytes[index - 2] == 0x83 else { return false }  // U+10C0–U+10FF
        let start = wordStart(before: index, in: bytes)
        var letters = 0
        var dotted = false
        var position = start
        while position < index {
            guard let scalar = scalar(in: bytes, at: position) else { return false }
            if scalar == "." {
                dotted = true
            } else if (0x10D0...0x10FF).contains(scalar.value) {
                letters += 1
            } else {
                return false
            }
            position += scalar.utf8.count
        }
        return letters <= 2 || dotted || georgianAbbreviations.contains(Array(bytes[start..<index]))
    }

    /// Georgian abbreviations of three letters or more: `მაგ.` (for example), `მლნ.` (million),
    /// `მლრდ.` (billion), `სხვ.` (others).
    private static let georgianAbbreviations: Set<[UInt8]> = Set(["მაგ", "მლნ", "მლრდ", "სხვ"].map { Array($0.utf8) })

    /// Whether the scalar at `index` is a lower-case letter of a script written in two cases.
    /// Not Georgian's: Unicode counts Mkhedruli as lower case (its capitals, Mtavruli, are for
    /// titles alone), and Georgian starts every sentence with it.
    static func startsLowercase(_ bytes: [UInt8], at index: Int) -> Bool {
        guard let scalar = scalar(in: bytes, at: index) else { return false }
        return scalar.properties.isLowercase && !(0x10D0...0x10FF).contains(scalar.value)
    }

    /// Whether the `.` at `index` follows a single upper-case letter standing alone (`J.`), or
    /// one that goes on an initialism (the `S` of `U.S.`, the `C` of `J.-C.`).
    private static func closesInitial(_ bytes: [UInt8], at index: Int) -> Bool {
        guard index > 0 else { return false }
        let start = scalarStart(in: bytes, containing: index - 1)
        guard let letter = scalar(in: bytes, at: start), letter.properties.isUppercase else { return false }
        // The `C.` of Spanish `a. C.`, `d. C.` is no initial: a sentence may end there.
        if letter == "C", start >= 3, bytes[start - 1] == 0x20, bytes[start - 2] == UInt8(ascii: "."),
            bytes[start - 3] == UInt8(ascii: "a") || bytes[start - 3] == UInt8(ascii: "d"), start == 3 || bytes[start - 4] == 0x20
        {
            return false
        }
        if start == 0 || bytes[start - 1] == 0x20 || bytes[start - 1] == 0x28 { return true }
        let before = bytes[start - 1]
        return before == 0x2E || (before == 0x2D && start >= 2 && bytes[start - 2] == 0x2E)
    }

    /// Where the UTF-8 encoding of the scalar holding the byte at `index` starts: `index`
    /// itself or the nearest byte before it that is no continuation byte (0 at most).
    static func scalarStart(in bytes: [UInt8], containing index: Int) -> Int {
        var start = index
        while start > 0 && bytes[start] & 0xC0 == 0x80 { start -= 1 }
        return start
    }

    /// The scalar whose UTF-8 encoding starts at `index` (nil if it is not a well-formed one).
    static func scalar(in bytes: [UInt8], at index: Int) -> Unicode.Scalar? {
        let lead = bytes[index]
        if lead < 0x80 { return Unicode.Scalar(lead) }
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0
        guard length > 0, index + length <= bytes.count else { return nil }
        var value = UInt32(lead) & (0x7F >> UInt32(length))
        for offset in 1..<length { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
        return Unicode.Scalar(value)
    }
}
