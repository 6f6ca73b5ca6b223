import Glibc
import KeyholdLinux
import SmartQuotes

exit(KeyholdDaemon.run(SmartQuotesKeyboardViewController.self))
