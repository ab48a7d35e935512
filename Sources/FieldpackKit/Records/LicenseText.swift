extension JSONWriter {
    /// Writes a licence code in lower case (the open-data export writes `CC-BY`, the API
    /// `cc-by`); null for nil.
    public mutating func lowercasedString(_ text: JSONText?) {
        guard let text else { return null() }
        if !text.bytes.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) { return string(text) }
        string(text.string.lowercased())
    }
}
