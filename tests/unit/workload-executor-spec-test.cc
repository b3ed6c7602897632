// The workload executor shares a run's WorkloadSpec instead of copying it: a job of many
// iterations has hundreds of thousands of transfers, and two copies of them doubled the part of
// the run's memory that grows with its iterations (docs/performance.md). No Simulator run.
#include "workload/model/workload-executor.h"

#include <catch2/catch.hpp>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

TEST_CASE("the executor shares the workload it is given, and copies one given by reference",
          "[unit][workload]")
{
    WorkloadSpec w;
    w.description = "three collectives, no transfers";
    w.collectives.resize(3);
    const auto shared = std::make_shared<const WorkloadSpec>(w);

    Ptr<WorkloadExecutor> a = CreateObject<WorkloadExecutor>();
    a->Setup(shared, {});
    CHECK(&a->GetSpec() == shared.get()); // the same object: no second copy
    CHECK(shared.use_count() == 2);

    Ptr<WorkloadExecutor> b = CreateObject<WorkloadExecutor>();
    b->Setup(w, {});
    CHECK(&b->GetSpec() != &w); // a copy: the caller may change or drop its own
    CHECK(b->GetSpec().collectives.size() == 3);
    CHECK(b->GetSpec().description == w.description);
    a->Dispose();
    b->Dispose();
}

} // namespace TUSK_TEST_FILE
