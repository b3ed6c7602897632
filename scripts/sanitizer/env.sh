# Sanitizer run-time options for build-asan (sourced by scripts/sanitize.sh and fuzz.sh).
_supp="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# detect_leaks: LeakSanitizer on (suppressions below); abort_on_error: a report kills the
# process with SIGABRT, so a Catch2 test or a fuzz run fails visibly; strict_string_checks
# catches more; check_initialization_order: static init order bugs across tusk's shared
# libraries. (detect_stack_use_after_return stays off: it cost 40 % more CPU on the component
# tests, over the CI budget; turn it on for a local hunt.)
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:check_initialization_order=1:strict_init_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1"
export LSAN_OPTIONS="suppressions=${_supp}/lsan.supp:print_suppressions=0"
unset _supp
