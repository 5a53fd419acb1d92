import CNavShim
import Foundation

/// A key and the modifiers held with it, read from Playwright's notation:
/// `Enter`, `a`, `Control+A`, `Shift+ArrowLeft`, `ControlOrMeta+Z`.
struct KeyChord: Equatable {
    /// The GDK keyval of the key.
    var keyval: UInt32
    /// NW_MODIFIER_* bits.
    var modifiers: UInt32

    /// DOM key names (as Playwright takes them) and the GDK key names that press them.
    static let keyNames: [String: String] = {
        var names = [
            "Enter": "Return", "Tab": "Tab", "Escape": "Escape", "Backspace": "BackSpace", "Delete": "Delete",
            "Insert": "Insert", "Space": "space", "ArrowUp": "Up", "ArrowDown": "Down", "ArrowLeft": "Left",
            "ArrowRight": "Right", "Home": "Home", "End": "End", "PageUp": "Page_Up", "PageDown": "Page_Down",
            "Backquote": "grave", "Minus": "minus", "Equal": "equal", "Backslash": "backslash",
            "BracketLeft": "bracketleft", "BracketRight": "bracketright", "Semicolon": "semicolon", "Quote": "apostrophe",
            "Comma": "comma", "Period": "period", "Slash": "slash",
        ]
        for number in 1...12 { names["F\(number)"] = "F\(number)" }
        for letter in "abcdefghijklmnopqrstuvwxyz" { names["Key\(letter.uppercased())"] = String(letter) }
        for digit in 0...9 { names["Digit\(digit)"] = "\(digit)" }
        return names
    }()

    private static let modifierBits: [String: UInt32] = [
        "Shift": UInt32(NW_MODIFIER_SHIFT), "Control": UInt32(NW_MODIFIER_CONTROL), "Alt": UInt32(NW_MODIFIER_ALT),
        "Meta": UInt32(NW_MODIFIER_META), "ControlOrMeta": UInt32(NW_MODIFIER_CONTROL),
    ]

    /// Reads `text`; nil when a part is not a key or modifier navwatch knows.
    init?(_ text: String) {
        var parts = text.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        // "+" alone, or a chord ending in "+" (`Shift++`), presses the plus key.
        if parts.count >= 2, parts.suffix(2) == ["", ""] { parts.removeLast(2); parts.append("+") }
        guard let key = parts.popLast(), !key.isEmpty else { return nil }
        var modifiers: UInt32 = 0
        for part in parts {
            guard let bit = Self.modifierBits[part] else { return nil }
            modifiers |= bit
        }
        let keyval: UInt32
        if let name = Self.keyNames[key] {
            // With Shift, a letter key types its capital, as on a US keyboard.
            let shifted = modifiers & UInt32(NW_MODIFIER_SHIFT) != 0 && key.hasPrefix("Key")
            keyval = nw_keyval_from_name(shifted ? name.uppercased() : name)
        } else if key.unicodeScalars.count == 1, let scalar = key.unicodeScalars.first {
            // With Control, Alt or Meta, a letter is the key, not the text it types.
            let shortcut = modifiers & ~UInt32(NW_MODIFIER_SHIFT) != 0
            let shifted = modifiers & UInt32(NW_MODIFIER_SHIFT) != 0
            let character = shortcut ? (String(scalar).lowercased().unicodeScalars.first ?? scalar)
                : shifted ? (String(scalar).uppercased().unicodeScalars.first ?? scalar) : scalar
            keyval = nw_keyval_from_unicode(character.value)
        } else if let bit = Self.modifierBits[key] {
            // A modifier pressed on its own.
            let names: [UInt32: String] = [UInt32(NW_MODIFIER_SHIFT): "Shift_L", UInt32(NW_MODIFIER_CONTROL): "Control_L",
                                           UInt32(NW_MODIFIER_ALT): "Alt_L", UInt32(NW_MODIFIER_META): "Meta_L"]
            keyval = nw_keyval_from_name(names[bit] ?? "")
        } else {
            keyval = 0
        }
        guard keyval != 0 else { return nil }
        self.keyval = keyval
        self.modifiers = modifiers
    }
}
