import Foundation

/// Checks a HAR document against HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/):
/// every required field present with its type, ISO 8601 dates, timings of
/// -1 or more with `send`, `wait` and `receive` not negative, and each
/// entry's `time` the sum of its known timings (`ssl` is inside `connect`).
/// Returns the problems found; none means it validates.
enum HARValidator {
    static func problems(in data: Data) -> [String] {
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return ["not a JSON object"] }
        var problems: [String] = []
        func require(_ object: [String: Any], _ key: String, _ where_: String, _ check: (Any) -> Bool, _ type: String) {
            guard let value = object[key] else { return problems.append("\(where_) lacks \(key)") }
            if !check(value) { problems.append("\(where_).\(key) is not \(type): \(value)") }
        }
        let isString: (Any) -> Bool = { $0 is String }
        let isNumber: (Any) -> Bool = { value in
            !(value is String || value is [Any] || value is [String: Any]) && (value is Double || value is Int || value is NSNumber)
        }
        let isArray: (Any) -> Bool = { $0 is [Any] }
        let isObject: (Any) -> Bool = { $0 is [String: Any] }
        let date = ISO8601DateFormatter()
        date.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let isDate: (Any) -> Bool = { ($0 as? String).flatMap { date.date(from: $0) } != nil }
        let isPairs: (Any) -> Bool = { value in
            (value as? [[String: Any]])?.allSatisfy { $0["name"] is String && $0["value"] is String } ?? false
        }
        guard let log = root["log"] as? [String: Any] else { return ["no log object"] }
        require(log, "version", "log", { $0 as? String == "1.2" }, "\"1.2\"")
        require(log, "creator", "log", { ($0 as? [String: Any]).map { $0["name"] is String && $0["version"] is String } ?? false },
                "a creator with name and version")
        require(log, "entries", "log", isArray, "an array")
        var pageIDs: Set<String> = []
        for (index, page) in ((log["pages"] as? [[String: Any]]) ?? []).enumerated() {
            let at = "pages[\(index)]"
            require(page, "startedDateTime", at, isDate, "an ISO 8601 date")
            require(page, "id", at, isString, "a string")
            require(page, "title", at, isString, "a string")
            require(page, "pageTimings", at, isObject, "an object")
            for key in ["onContentLoad", "onLoad"] {
                if let value = (page["pageTimings"] as? [String: Any])?[key], !isNumber(value) {
                    problems.append("\(at).pageTimings.\(key) is not a number")
                }
            }
            if let id = page["id"] as? String { pageIDs.insert(id) }
        }
        for (index, entry) in ((log["entries"] as? [[String: Any]]) ?? []).enumerated() {
            let at = "entries[\(index)]"
            if let ref = entry["pageref"], !((ref as? String).map(pageIDs.contains) ?? false) {
                problems.append("\(at).pageref names no page")
            }
            require(entry, "startedDateTime", at, isDate, "an ISO 8601 date")
            require(entry, "time", at, isNumber, "a number")
            require(entry, "cache", at, isObject, "an object")
            let request = entry["request"] as? [String: Any] ?? [:]
            if entry["request"] == nil { problems.append("\(at) lacks request") }
            for (key, check, type) in [("method", isString, "a string"), ("url", isString, "a string"),
                                       ("httpVersion", isString, "a string"), ("cookies", isArray, "an array"),
                                       ("headers", isPairs, "name/value pairs"), ("queryString", isPairs, "name/value pairs"),
                                       ("headersSize", isNumber, "a number"), ("bodySize", isNumber, "a number")] {
                require(request, key, "\(at).request", check, type)
            }
            let response = entry["response"] as? [String: Any] ?? [:]
            if entry["response"] == nil { problems.append("\(at) lacks response") }
            for (key, check, type) in [("status", isNumber, "a number"), ("statusText", isString, "a string"),
                                       ("httpVersion", isString, "a string"), ("cookies", isArray, "an array"),
                                       ("headers", isPairs, "name/value pairs"), ("content", isObject, "an object"),
                                       ("redirectURL", isString, "a string"), ("headersSize", isNumber, "a number"),
                                       ("bodySize", isNumber, "a number")] {
                require(response, key, "\(at).response", check, type)
            }
            let content = response["content"] as? [String: Any] ?? [:]
            require(content, "size", "\(at).response.content", isNumber, "a number")
            require(content, "mimeType", "\(at).response.content", isString, "a string")
            guard let timings = entry["timings"] as? [String: Any] else {
                problems.append("\(at) lacks timings")
                continue
            }
            var sum = 0.0
            for key in ["blocked", "dns", "connect", "ssl", "send", "wait", "receive"] {
                let required = ["send", "wait", "receive"].contains(key)
                guard let value = timings[key] else {
                    if required { problems.append("\(at).timings lacks \(key)") }
                    continue
                }
                guard isNumber(value), let number = value as? Double else {
                    problems.append("\(at).timings.\(key) is not a number")
                    continue
                }
                if number < (required ? 0 : -1) { problems.append("\(at).timings.\(key) is \(number)") }
                if key != "ssl" && number > 0 { sum += number }
            }
            if let time = entry["time"] as? Double, abs(time - sum) > 0.01 {
                problems.append("\(at).time \(time) is not the sum of its timings, \(sum)")
            }
        }
        return problems
    }
}
