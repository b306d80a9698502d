// Logs, as Apple's samples do, once at each of Logger's levels and with
// each privacy and format, for AppleModuleNamesTests to read on standard
// error. Depends on FileWrapperKitAppleModules alone.
import os

let logger = Logger(subsystem: "com.example.Notes", category: "Storage")
let user = "alice"
let count = 42

logger.trace("trace \(count)")
logger.debug("debug \(user, privacy: .public)")
logger.info("info \(user)")
logger.notice("notice \(user, privacy: .private)")
logger.warning("warning \(user, privacy: .sensitive)")
logger.error("error \(count, privacy: .private) \(count, privacy: .auto)")
logger.fault("fault \(1.5) \(true) \(Int.self)")
logger.critical("critical \(user, privacy: .private(mask: .hash)) \(user, privacy: .private(mask: .hash))")
logger.log("log \(255, format: .hex(includePrefix: true)) \(-1 as Int8, format: .hex) \(7, format: .decimal(minDigits: 3))")
logger.log(level: .info, "level \(2.0, format: .fixed(precision: 2)) [\(user, align: .right(columns: 8), privacy: .public)] [\(count, align: .left(columns: 4))] \(false, format: .answer)")
Logger().notice("no subsystem")
