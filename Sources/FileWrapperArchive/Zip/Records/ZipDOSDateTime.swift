/// The MS-DOS date (high 16 bits) and time (low 16 bits) of the zip
/// headers (APPNOTE 4.4.6), as our writer writes them: in UTC, so that a
/// zip's bytes do not depend on the time zone of the process that wrote
/// it. Readers never take them as a time (docs/tree-digest.md, "What
/// archives hold"): they name no time zone.
enum ZipDOSDateTime {
    /// The fields of `seconds` in UTC, with two-second resolution. Like
    /// libarchive, a time before 1980 becomes 1980-01-01 00:00:00 and one
    /// after 2107 becomes 2107-12-31 23:59:58, the range the fields can
    /// hold. Computed here rather than with `gmtime_r`, which reads `TZ`
    /// and under a `right/` zone counts leap seconds.
    static func encoded(_ seconds: Int64) -> UInt32 {
        guard seconds >= 315_532_800 else { return 0x0021_0000 }  // 1980-01-01 00:00:00 UTC
        guard seconds < 4_354_819_200 else { return 0xFF9F_BF7D }  // 2108-01-01 00:00:00 UTC
        let days = seconds / 86400
        let secondOfDay = seconds % 86400
        // Days since 1970-01-01 to a proleptic Gregorian date (Howard
        // Hinnant's civil_from_days, for non-negative days).
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)

        let date = (year - 1980) << 9 | month << 5 | day
        let time = (secondOfDay / 3600) << 11 | (secondOfDay / 60 % 60) << 5 | (secondOfDay % 60) / 2
        return UInt32(date << 16 | time)
    }
}
