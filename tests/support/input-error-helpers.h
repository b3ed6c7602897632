/*
 * Helper of the tests of input readers: the ns3::InputError a call must throw.
 */
#ifndef TUSK_TEST_INPUT_ERROR_HELPERS_H
#define TUSK_TEST_INPUT_ERROR_HELPERS_H

#include "fabric/model/input-error.h"

#include <catch2/catch.hpp>

#include <functional>
#include <stdexcept>

namespace tusk_test
{

/** Run f, which must throw ns3::InputError, and return the error. */
inline ns3::InputError
ExpectInputError(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const ns3::InputError& e)
    {
        return e;
    }
    FAIL("expected an ns3::InputError");
    throw std::logic_error("unreachable");
}

} // namespace tusk_test

#endif
