import FieldpackKit
import Testing

/// Sentences in every script (issue 10, rule 9): where the stub rule and the summary see a
/// sentence end.
@Suite struct BlurbSentenceTests {
    private func page(_ paragraphs: String, lang: String = "en") -> String {
        """
        <!DOCTYPE html><html><head><meta charset="utf-8"/><title>Test</title></head>
        <body lang="\(lang)" class="mw-parser-output"><section data-mw-section-id="0">\(paragraphs)</section></body></html>
        """
    }

    private func blurb(_ paragraphs: String, summaryLength: Int = 300) throws -> Blurb {
        var rules = BlurbRules()
        rules.summaryLength = summaryLength
        return try BlurbMaker(rules: rules).blurb(html: page(paragraphs))
    }

    @Test(arguments: [
        "丹顶鹤是一种大型涉禽。", "它会飞吗！", "它会飞吗？", "الفهد حيوان سريع جدا؟", "یہ ایک پرندہ ہے۔", "यह एक पक्षी है।",
        "यह एक पक्षी है॥", "Սա թռչուն է։", "ይህ ወፍ ነው።", "They called it \"the king.\"", "Они назвали его «король.»",
        "It was small (about ten grams.)", "They called it “the king.”", "Es un ave pequeña!",
        // German and Czech quotes close with “ and ‘, Danish with «; Burmese and Khmer end with ။ and ។.
        "Ihr Ruf klingt wie „Zizibä.“", "Man nennt sie ‚Kohlmeise.‘", "Den kaldes »musvit.«", "ကြောင်သည် နို့တိုက်သတ္တဝါ ဖြစ်သည်။",
        "ឆ្មាជាសត្វថនិកសត្វ។",
        // Right-to-left wikis write a right-to-left mark after the stop (`.&rlm;`).
        "الفهد حيوان سريع جدا.\u{200F}", "الفهد حيوان سريع جدا؟\u{200F}",
    ])
    func aShortParagraphEndingASentenceInAnyScriptIsNotAStub(paragraph: String) throws {
        let made = try blurb("<p>\(paragraph)</p><p>Adult female, Belgium</p>")
        #expect(made.html == "<p>\(paragraph)</p>")
    }

    @Test func aChineseParagraphIsJudgedByItsCharactersNotItsSpaces() throws {
        // 69 characters and no space or sentence end: long enough not to be a stub, as 69
        // Latin letters would be; 20 characters without a sentence end are a caption.
        let long = String(repeating: "丹顶鹤在东亚的湿地繁殖", count: 6) + "冬季南"
        let caption = "飞行中的丹顶鹤在北海道的钏路湿原上空盘旋"
        let made = try blurb("<p>\(long)</p><p>\(caption)</p>")
        #expect(made.html == "<p>\(long)</p>")
    }

    @Test(arguments: [
        ("丹顶鹤是一种大型涉禽。它们在东亚的湿地繁殖，冬季向南迁徙到中国东部沿海。", "丹顶鹤是一种大型涉禽。"),
        ("الفهد حيوان سريع. يعيش الفهد في أفريقيا وإيران منذ زمن بعيد جدا جدا.", "الفهد حيوان سريع."),
        ("كيف يصطاد الفهد؟ يعتمد على الاقتراب من فرائسه خفية ثم الانقضاض عليها.", "كيف يصطاد الفهد؟"),
        ("यह एक पक्षी है। यह पूर्वी एशिया की आर्द्रभूमि में प्रजनन करता है और सर्दियों में दक्षिण जाता है।", "यह एक पक्षी है।"),
        ("Սա մեծ թռչուն է։ Այն բազմանում է Արևելյան Ասիայի խոնավ տարածքներում։", "Սա մեծ թռչուն է։"),
        ("ይህ ትልቅ ወፍ ነው። በምስራቅ እስያ ረግረጋማ ቦታዎች ይራባል እና በክረምት ወደ ደቡብ ይሰደዳል።", "ይህ ትልቅ ወፍ ነው።"),
        ("He called it \"a king.\" The bird is found across Eurasia and North Africa.", "He called it \"a king.\""),
        ("It is small (about ten grams.) The bird is found across Eurasia and North Africa.", "It is small (about ten grams.)"),
        ("Ihr Ruf klingt wie „Zizibä.“ Die Kohlmeise ist die größte Meise Europas und weit verbreitet.", "Ihr Ruf klingt wie „Zizibä.“"),
        ("ကြောင်သည် နို့တိုက်သတ္တဝါ ဖြစ်သည်။ ၎င်းတို့ကို ကမ္ဘာတစ်ဝှမ်းလုံးတွင် အိမ်မွေးတိရစ္ဆာန်အဖြစ် မွေးမြူကြသည်။", "ကြောင်သည် နို့တိုက်သတ္တဝါ ဖြစ်သည်။"),
        ("ឆ្មាជាសត្វថនិកសត្វ។ វាត្រូវបានគេចិញ្ចឹមនៅទូទាំងពិភពលោកជាសត្វចិញ្ចឹមក្នុងផ្ទះ។", "ឆ្មាជាសត្វថនិកសត្វ។"),
    ])
    func everyScriptsSentenceEndIsWhereTheSummaryCuts(lead: String, summary: String) throws {
        let made = try blurb("<p>\(lead)</p>", summaryLength: summary.unicodeScalars.count + 4)
        #expect(made.summary == summary)
    }

    /// Chinese with a Latin name early in it and no sentence end near the target: cut at a
    /// character near the target, not back at the name's space (13 characters of 40).
    @Test func aLeadWithoutSpacesIsCutNearTheTargetThoughALatinNameHasOne() throws {
        let lead = "大山雀（学名：Parus major）" + String(repeating: "是山雀科山雀属的鸟类分布于欧亚大陆和北非", count: 8)
        let made = try blurb("<p>\(lead)</p>", summaryLength: 40)
        #expect(made.summary == String(lead.unicodeScalars.prefix(40)) + "…", "\(made.summary)")
        // Text with spaces is still cut at a word.
        let english = "The great tit " + String(repeating: "flies low over the water and ", count: 20)
        let cut = try blurb("<p>\(english)</p>", summaryLength: 40)
        #expect(cut.summary == "The great tit flies low over the water…", "\(cut.summary)")
    }

    @Test func theSummaryNeverCutsMidSentenceWhenASentenceEndsWithinItsTarget() throws {
        // The first sentence ends well before half the target, the second runs far past twice it.
        let long = "It then " + String(repeating: "flies low over the water and ", count: 30) + "dives."
        let made = try blurb("<p>The bird is small. \(long)</p>", summaryLength: 100)
        #expect(made.summary == "The bird is small.")
    }

    @Test func initialsAndAbbreviationsDoNotEndASentenceButACaselessScriptsFullStopDoes() throws {
        let made = try blurb(
            "<p>It was named by J. Smith in a short note on birds, e.g. the kingfisher and others. It is small.</p>",
            summaryLength: 60)
        #expect(made.summary == "It was named by J. Smith in a short note on birds, e.g. the kingfisher and others.")
    }

    /// A German ordinal before a month or a century, and a `.` before a number (an abbreviation:
    /// `c.`, `ca.`, `Nr.`), end no sentence: with a target just past them, the summary is not cut
    /// there as at a sentence end (it was "…seit dem Beginn des 20."). A year ending a sentence
    /// still ends it.
    @Test(arguments: [
        ("Die Kohlmeise wird seit dem Beginn des 20. Jahrhunderts intensiv erforscht und beringt. Sie ist die größte Meise.",
         "Die Kohlmeise wird seit dem Beginn des 20.", false),
        ("Die Brutzeit beginnt meist am 3. April und endet im Juli mit der zweiten Brut. Sie ist die größte Meise Europas.",
         "Die Brutzeit beginnt meist am 3.", false),
        ("It was first described c. 1758 by Linnaeus in a short note on the birds of Sweden. The bird is found across Eurasia.",
         "It was first described c.", false),
        ("Sie wiegt ca. 18 g und ist damit recht schwer für eine Meise dieser Größe. Die Kohlmeise ist die größte Meise Europas.",
         "Sie wiegt ca.", false),
        ("Linnaeus described it in 1758. The bird is found across Eurasia and North Africa, in woods and gardens alike.",
         "Linnaeus described it in 1758.", true),
        // A sentence may start with a number after a word or a year (German does so often).
        ("Die Art wurde von Linné beschrieben. 1997 wurde sie in mehrere Arten aufgeteilt, die heute getrennt gelten.",
         "Die Art wurde von Linné beschrieben.", true),
        ("Linnaeus described the species in 1758. 14 subspecies are recognised today across its wide range.",
         "Linnaeus described the species in 1758.", true),
        // Russian: the year's and the century's abbreviations after a number, before a name.
        ("Вид впервые описан в 1758 г. Карлом Линнеем в десятом издании его труда. Встречается по всей Европе.",
         "Вид впервые описан в 1758 г.", false),
        ("Популяция заметно сократилась в XIX в. Охота на птиц тогда велась повсеместно и без ограничений.",
         "Популяция заметно сократилась в XIX в.", false),
        ("Птицы гнездились здесь в 1990–1995 гг. Затем колония переместилась на соседний остров у берега.",
         "Птицы гнездились здесь в 1990–1995 гг.", false),
        // An abbreviation in another script before a number, and a longer one that never ends
        // a sentence (the summary was "…длина тела ок.", "…measuring approx.").
        ("Это самый крупный вид синиц в Европе: длина тела ок. 14 см, масса ок. 20 г. Обитает в лесах.",
         "Это самый крупный вид синиц в Европе: длина тела ок.", false),
        ("The great tit is a distinctive bird, measuring approx. 14 cm in length, with a black head. It is common.",
         "The great tit is a distinctive bird, measuring approx.", false),
        // An initialism (it was "…listed by the U.S."), French `av. J.-C.`, German `z. B.`, a place.
        ("Since 1967 it has been listed by the U.S. Fish and Wildlife Service as an endangered species. It is tall.",
         "Since 1967 it has been listed by the U.S.", false),
        ("Aristote la décrit déjà au IVe siècle av. J.-C. dans son Histoire des animaux, avec soin. Elle est commune.",
         "Aristote la décrit déjà au IVe siècle av.", false),
        ("Sie frisst vor allem Insekten, z. B. Raupen und Käfer, im Winter auch Samen und Nüsse. Sie ist häufig.",
         "Sie frisst vor allem Insekten, z.", false),
        // German abbreviations of two words, before a capitalised noun (summaries stopped at
        // "…Sie frisst u. a.").
        ("Sie frisst u. a. Insekten und Spinnen, im Winter auch Samen und Nüsse an Futterstellen. Sie ist häufig.",
         "Sie frisst u. a.", false),
        ("Sie frisst v. a. Raupen und Käfer, die sie im Laub der Bäume und Sträucher sucht. Sie ist häufig.",
         "Sie frisst v. a.", false),
        // `v. Chr.` ends one when the sentence ends there (German writes one full stop).
        ("Ihre Vorfahren lebten 500 v. Chr. Griechische Autoren beschrieben sie schon in ihren Werken. Sie ist häufig.",
         "Ihre Vorfahren lebten 500 v. Chr.", true),
        ("Die Art ist weit verbreitet, d. h. Vögel finden sich fast überall in Europa und Asien. Sie ist häufig.",
         "Die Art ist weit verbreitet, d. h.", false),
        ("It is found in open areas around St. Helena, mostly on pasture and on the island's dry plains. It is small.",
         "It is found in open areas around St.", false),
        // A German ordinal after an article, before any noun (it was "…brüten meist schon im 1.").
        ("Die Jungvögel brüten meist schon im 1. Lebensjahr, und Paare bleiben oft mehrere Jahre zusammen. Sie ist häufig.",
         "Die Jungvögel brüten meist schon im 1.", false),
        // The short-abbreviation rule in another cased script (no list names `рис.`), and the
        // `env` after an elision, and an initialism's `-` (`J.-C.`) before a capital.
        ("Строение крыла показано на рис. 3 в приложении к этой статье о птицах. Вид широко распространён.",
         "Строение крыла показано на рис.", false),
        ("Sa superficie est d'env. 14 763 km² selon les relevés les plus récents du parc. Elle est boisée.",
         "Sa superficie est d'env.", false),
        ("Le genre fut décrit en 40 av. J.-C. Les auteurs anciens le nommaient déjà ainsi dans leurs textes. Il est rare.",
         "Le genre fut décrit en 40 av. J.-C.", false),
        // A script without case writes no such abbreviations: its short last words end sentences
        // before a number (Korean `분포한다.`, Arabic `كلها.`).
        ("박새는 참새목 박샛과에 속하는 작은 새로 유럽에 널리 분포한다. 1758년 린네가 처음으로 이 종을 기재하였으며 지금은 여러 아종으로 나뉜다.",
         "박새는 참새목 박샛과에 속하는 작은 새로 유럽에 널리 분포한다.", true),
        ("ينتشر القرقف الكبير في غابات أوروبا وآسيا كلها. 14 نويعا معروفا اليوم في نطاق انتشاره الواسع جدا.",
         "ينتشر القرقف الكبير في غابات أوروبا وآسيا كلها.", true),
        // An elided word before a number is no abbreviation (only the listed ones are looked
        // for after an apostrophe), and a listed one matches capitalised in any script.
        ("Les larves vivent toujours dans l'eau. 12 espèces sont connues en Europe, surtout dans les marais. Elles sont rares.",
         "Les larves vivent toujours dans l'eau.", true),
        ("Длина крыла составляет Прибл. Четырнадцать сантиметров у взрослых самцов подвида. Вид широко распространён.",
         "Длина крыла составляет Прибл.", false),
        // A count ending a sentence still ends it, with no article before it.
        ("Das Gelege umfasst meist 5 bis 7. Die Eier werden vom Weibchen allein etwa zwei Wochen bebrütet. Sie ist häufig.",
         "Das Gelege umfasst meist 5 bis 7.", true),
        // Not an abbreviation after a number: a word ending in г (`Луг.`) ends a sentence.
        ("Птицы гнездятся у реки Луг. Гнёзда они строят на старых деревьях в густых прибрежных зарослях.",
         "Птицы гнездятся у реки Луг.", true),
        // German abbreviations before a capital noun (the summary was "…durch ihre sog.").
        ("Die Männchen tragen eine sog. Mähne aus langen Haaren, die Weibchen dagegen keine. Sie leben in Rudeln.",
         "Die Männchen tragen eine sog.", false),
        ("Die Art lebt in Savannen bzw. Halbwüsten Afrikas und in einem Wald im Westen Indiens. Sie lebt in Rudeln.",
         "Die Art lebt in Savannen bzw.", false),
        // Spanish `a. C.` (the summary was "…hacia el siglo VIII a."); its `C.` may end one.
        ("La ciudad fue fundada hacia el siglo VIII a. C. por colonos fenicios llegados de Tiro. Hoy es un yacimiento.",
         "La ciudad fue fundada hacia el siglo VIII a.", false),
        // Dotted abbreviations of scripts whose sentences end otherwise (Thai `ค.ศ.`, Hindi
        // `ई. पू.`: the summaries ended there).
        ("สิงโตได้รับการบรรยายครั้งแรกในปี ค.ศ. 1758 โดยคาโรลัส ลินเนียส นักพฤกษศาสตร์ชาวสวีเดน ซึ่งตั้งชื่อว่า Felis leo",
         "สิงโตได้รับการบรรยายครั้งแรกในปี ค.ศ.", false),
        ("भारत में सिंह के जीवाश्म लगभग 300 ई. पू. के मिलते हैं और यह तब पूरे उत्तर भारत में पाया जाता था। आज यह केवल गिर में है।",
         "भारत में सिंह के जीवाश्म लगभग 300 ई.", false),
        ("भारत में सिंह के जीवाश्म लगभग 300 ई. पू. के मिलते हैं और यह तब पूरे उत्तर भारत में पाया जाता था। आज यह केवल गिर में है।",
         "भारत में सिंह के जीवाश्म लगभग 300 ई. पू.", false),
        // …but a short verb that ends a sentence with `.` (Marathi, Hindi written so) before an
        // initial or a title still ends it: it carries a vowel sign, as no initial does.
        ("पुणे हे महाराष्ट्रातील एक मोठे शहर आहे. इ.स. १७४९ मध्ये ते पेशव्यांची राजधानी झाले आणि पुढे शंभर वर्षे तसेच राहिले.",
         "पुणे हे महाराष्ट्रातील एक मोठे शहर आहे.", true),
        ("यह भारत का सबसे बड़ा शहर है. ए. के. राव ने इसके इतिहास पर एक लंबी पुस्तक लिखी है जो बहुत प्रसिद्ध हुई.",
         "यह भारत का सबसे बड़ा शहर है.", true),
        // Georgian abbreviations, which no capital after them tells (`ე.წ.` so-called, `ქ.` city).
        ("თბილისი საქართველოს დედაქალაქია. ქალაქი დააარსა ვახტანგ გორგასალმა ე.წ. ძველი ქალაქის ადგილას, მტკვრის ნაპირზე.",
         "თბილისი საქართველოს დედაქალაქია. ქალაქი დააარსა ვახტანგ გორგასალმა ე.წ.", false),
        ("ეს ტაძარი მდებარეობს ქ. მცხეთაში, არაგვისა და მტკვრის შესართავთან, ძველი დედაქალაქის ცენტრში. იგი დიდია.",
         "ეს ტაძარი მდებარეობს ქ.", false),
        // `Geb.` (an Egyptian god) ends a sentence: the German `geb.` is looked for in lower case.
        ("Nut was the goddess of the sky and the wife of Geb. Their children were Osiris, Isis, Set and Nephthys, the gods.",
         "Nut was the goddess of the sky and the wife of Geb.", true),
        // The `C.` of `a. C.` ends one when the next sentence starts there.
        ("Roma fue fundada en el año 753 a. C. Después fue gobernada por siete reyes durante casi dos siglos y medio.",
         "Roma fue fundada en el año 753 a. C.", true),
        // Ukrainian and Polish write the year's and the century's abbreviations after a number
        // too (the summaries ended "…у 1758 р.", "…w 1758 r.").
        ("Уперше вид описав у 1758 р. Карл Лінней у десятому виданні своєї праці «Система природи». Поширений у Європі.",
         "Уперше вид описав у 1758 р.", false),
        ("Gatunek opisał naukowo w 1758 r. Karol Linneusz, nadając mu nazwę Parus major. Występuje w całej Europie.",
         "Gatunek opisał naukowo w 1758 r.", false),
        ("Populacja zmalała w XIX w. Polowania prowadzono wtedy wszędzie i bez żadnych ograniczeń prawnych.",
         "Populacja zmalała w XIX w.", false),
        // Korean short words end sentences one after the other.
        ("사자는 크다. 몸길이는 수컷이 최대 2.5 미터에 이르며 암컷은 그보다 작고 가볍다. 초원에 산다.",
         "사자는 크다.", true),
        // The language before a scientific name that opens nearly every species article of the
        // Cyrillic wikis and Polish (the summaries ended "…(лат.", "…(łac."), German `Mio.`.
        ("Большая синица (лат. Parus major) — широко распространённая птица из семейства синицевых. Обитает в лесах.",
         "Большая синица (лат.", false),
        ("Велика синиця (лат. Parus major) — вид горобцеподібних птахів з родини синицевих. Поширена в Європі.",
         "Велика синиця (лат.", false),
        ("Bogatka zwyczajna (łac. Parus major) – gatunek małego ptaka z rodziny sikor. Występuje w całej Europie.",
         "Bogatka zwyczajna (łac.", false),
        ("Ангел (от др.-греч. ἄγγελος «вестник») — в авраамических религиях духовное существо. Он служит Богу.",
         "Ангел (от др.-греч.", false),
        ("In Europa brüten etwa 75 Mio. Brutpaare der Kohlmeise in Wäldern, Parks und Gärten. Sie ist häufig.",
         "In Europa brüten etwa 75 Mio.", false),
        // Georgian writes no capitals at a sentence's start (Unicode counts its letters lower case).
        ("ლომი კატისებრთა ოჯახის წარმომადგენელია. გავრცელებულია აფრიკაში და ინდოეთის გირის ტყეში, სადაც ცოტაა.",
         "ლომი კატისებრთა ოჯახის წარმომადგენელია.", true),
    ])
    func anOrdinalAnInitialismOrAnAbbreviationEndsNoSentence(lead: String, prefix: String, ends: Bool) throws {
        let made = try blurb("<p>\(lead)</p>", summaryLength: prefix.unicodeScalars.count + 8)
        #expect((made.summary == prefix) == ends, "\(made.summary)")
    }

    /// The summary is never cut where a bracket is left open: an abbreviation no list knows,
    /// taken for a sentence end inside brackets, ended it there (`… рода синиц (лат.` before the
    /// list held `лат.`).
    @Test func theSummaryIsNeverCutInsideBrackets() throws {
        let lead = "The great tit is the largest tit of the genus (described by Lnn. Syst. Nat. in a note on birds) and it is found "
            + "across Europe. It is common in woods and gardens."
        let made = try blurb("<p>\(lead)</p>", summaryLength: 70)
        #expect(made.summary == "The great tit is the largest tit of the genus (described by Lnn. Syst. Nat. in a note on birds) and it is found across Europe.",
                "\(made.summary)")
    }

    /// A paragraph cut by a removed list keeps its whole sentences only when they are surely
    /// whole, as a list's introduction does: no bracket left open (it kept `<b>…</b> (лат.`).
    @Test func aParagraphCutByAListKeepsNoSentenceThatLeavesABracketOpen() throws {
        let made = try blurb(
            "<p><b>Great tit</b> (Lnn. Parus major) is a bird of the family of tits, found in woods, parks and gardens, among them</p>"
                + "<ul><li>Europe</li><li>Asia</li></ul><p>It is the largest of the tits in Europe and weighs about twenty grams.</p>")
        #expect(made.html == "<p>It is the largest of the tits in Europe and weighs about twenty grams.</p>", "\(made.html)")
    }

    /// A Thai paragraph marks no sentence end: before a figure or a table it is not taken for
    /// one cut short and dropped (a lead was lost so, and the summary was empty).
    @Test func aThaiParagraphBeforeAFigureIsKeptWhole() throws {
        let thai = "สิงโตเป็นสัตว์เลี้ยงลูกด้วยนมในวงศ์เสือและแมว พบในทวีปแอฟริกาและประเทศอินเดีย สิงโตตัวผู้มีแผงคอ"
        let made = try blurb("<p>\(thai)</p><figure><img src=\"x.jpg\"/><figcaption>สิงโต</figcaption></figure><p>สิงโตอาศัยอยู่เป็นฝูง</p>")
        #expect(made.html.hasPrefix("<p>\(thai)</p>"), "\(made.html)")
        #expect(made.summary.hasPrefix("สิงโตเป็นสัตว์"), "\(made.summary)")
    }

    /// A Thai paragraph before a list introduces it (`… ได้แก่`, namely): dropped with its list,
    /// as before, and a short Thai paragraph (a caption) is a stub; neither is the summary.
    @Test func aThaiListIntroductionAndAThaiCaptionAreNotTheSummary() throws {
        let lead = "จังหวัดเชียงใหม่เป็นจังหวัดที่มีประชากรมากที่สุดในภาคเหนือ ตั้งอยู่ในหุบเขาที่ล้อมรอบด้วยภูเขาสูงและป่าไม้"
        let made = try blurb(
            "<p>ภาพถ่ายดาวเทียม</p><p>จังหวัดเชียงใหม่แบ่งเขตการปกครองออกเป็นยี่สิบห้าอำเภอ ซึ่งมีอำเภอที่สำคัญ ได้แก่</p><ul><li>อำเภอเมือง</li></ul><p>\(lead)</p>")
        #expect(made.html == "<p>\(lead)</p>", "\(made.html)")
        #expect(made.summary == lead)
    }

    /// Georgian: a paragraph introducing a list keeps its whole sentences before the colon
    /// (each next word "lower case" hid every end, and the paragraph went).
    @Test func aGeorgianParagraphBeforeAListKeepsItsWholeSentences() throws {
        let made = try blurb(
            "<p>ლომი კატისებრთა ოჯახის მსხვილი წარმომადგენელია და ცხოვრობს აფრიკის სავანებში. გამოყოფენ ორ ქვესახეობას:</p><ul><li>ა</li></ul>")
        #expect(made.html == "<p>ლომი კატისებრთა ოჯახის მსხვილი წარმომადგენელია და ცხოვრობს აფრიკის სავანებში.</p>", "\(made.html)")
    }

    @Test func chineseLeadParagraphsRunOnWithoutASpace() throws {
        let made = try blurb("<p>丹顶鹤是一种大型涉禽。</p><p>它们在东亚的湿地繁殖。</p>")
        #expect(made.summary == "丹顶鹤是一种大型涉禽。它们在东亚的湿地繁殖。")
    }

    /// A heading in capitals as its wiki's language writes them: Turkish `İ`, Greek without
    /// accents (`FIZIKSEL` was a misspelling, `ΠΕΡΙΓΡΑΦΉ` kept its tonos); others as before.
    @Test(arguments: [
        ("tr", "Fiziksel özellikler", "FİZİKSEL ÖZELLİKLER"), ("az", "Yayılması", "YAYILMASI"),
        ("el", "Περιγραφή και διαΐστημα", "ΠΕΡΙΓΡΑΦΗ ΚΑΙ ΔΙΑΪΣΤΗΜΑ"), ("en", "Description", "DESCRIPTION"),
        ("de", "Straße", "STRASSE"),
    ])
    func aHeadingIsInCapitalsAsItsLanguageWritesThem(language: String, heading: String, capitals: String) throws {
        var rules = BlurbRules()
        rules.language = language
        let made = try BlurbMaker(rules: rules).blurb(html: page(
            "<p>The first paragraph of the article, long enough to stay, ends here with a stop.</p><h2>\(heading)</h2><p>A paragraph of the section, long enough to stay in the blurb, ends.</p>"))
        #expect(made.html.contains("<b>\(capitals)</b>"), "\(made.html)")
    }

    /// Parsoid writes a rule that shows nothing (`-{H|…}-`) as a `meta`, and one that adds a
    /// conversion and shows its text (`-{A|…}-`, often the article's own name) as a `span` with
    /// `"add":true`: that text was dropped ("（Sydney）是…", the name gone).
    @Test func aLanguageVariantSpanShowsItsTextAndAHiddenRuleShowsNothing() throws {
        let made = try blurb("""
            <p><b><span typeof="mw:LanguageVariant" data-mw-variant='{"add":true,"twoway":[{"l":"zh-cn","t":"丹顶鹤"},{"l":"zh-tw","t":"丹頂鶴"}]}'></span></b>\
            又称<span typeof="mw:LanguageVariant" data-mw-variant='{"disabled":{"t":"仙鹤"}}'></span>，\
            台湾称<span typeof="mw:LanguageVariant" data-mw-variant='{"twoway":[{"l":"zh-tw","t":"&lt;b>丹頂鶴&lt;/b>"},{"l":"zh-cn","t":"丹顶鹤"}]}'></span>。\
            <meta typeof="mw:LanguageVariant" data-mw-variant='{"add":true,"twoway":[{"l":"zh-cn","t":"鹤"},{"l":"zh-tw","t":"鶴"}]}'/></p>
            """)
        #expect(made.html == "<p><b>丹顶鹤</b>又称仙鹤，台湾称丹頂鶴。</p>", "\(made.html)")
    }

    /// A variant's text is HTML: its character references are decoded, and a `<` or `>` that is
    /// text stays (`R&amp;D` showed as `R&amp;D`, `&lt;研究>` lost its `>`).
    @Test func aLanguageVariantsReferencesAreDecodedAndItsBracketsKept() throws {
        let made = try blurb("""
            <p>大山雀是<span typeof="mw:LanguageVariant" data-mw-variant='{"disabled":{"t":"R&amp;amp;D &amp;lt;研究> &amp;#x5C71;&amp;#38;&amp;eacute;<!-- x -->"}}'></span>的鸟类。</p>
            """)
        #expect(made.html == "<p>大山雀是R&amp;D &lt;研究&gt; 山&amp;é的鸟类。</p>", "\(made.html)")
    }

    @Test func aChineseHeadingOfTwoCharactersIsShown() throws {
        let made = try BlurbMaker().blurb(html: page("""
            <p>丹顶鹤是一种大型涉禽，头顶裸露的皮肤呈鲜红色。</p></section><section data-mw-section-id="1"><h2 id="分布">分布</h2>
            <p>北海道的种群不迁徙，全年留居当地。</p>
            """))
        #expect(made.html.hasSuffix("<br><b>分布</b><br><p>北海道的种群不迁徙，全年留居当地。</p>"))
    }
}
