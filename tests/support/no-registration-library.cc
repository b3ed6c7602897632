// A shared library that registers nothing with tusk (no kind, no ns-3 TypeId), for the
// --plugin test that refuses such a library (tests/component/plugin-cli-test.cc).

extern "C" int
tusk_test_no_registration()
{
    return 42;
}
