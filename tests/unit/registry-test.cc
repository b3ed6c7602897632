// Registry<Info> (fabric/model/registry.h), the table each sort of kind fills itself, and the
// congestion controls' registrations (rdma/model/cc/cc-registry.h): what each says it needs
// must be what its model does.

#include "fabric/model/registry.h"
#include "rdma/model/cc/cc-registry.h"
#include "rdma/model/cc/rdma-congestion-control.h"

#include "ns3/object-factory.h"

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

struct ToyInfo
{
    std::string name;
    std::string typeId;
};

} // namespace

TEST_CASE("Registry keeps its kinds sorted and finds them by name", "[unit][registry]")
{
    Registry<ToyInfo> r("toys");
    r.Register({"spray", "ns3::Spray"});
    r.Register({"ecmp", "ns3::Ecmp"});
    r.Register({"drill", "ns3::Drill"});
    REQUIRE(r.All().size() == 3);
    CHECK(r.All()[0].name == "drill");
    CHECK(r.All()[2].name == "spray");
    REQUIRE(r.Find("ecmp") != nullptr);
    CHECK(r.Find("ecmp")->typeId == "ns3::Ecmp");
    CHECK(r.Find("ecm") == nullptr);
    CHECK(r.Find("zzz") == nullptr);
    CHECK(r.NameList() == "drill, ecmp, spray");
    CHECK(r.NameList("\"") == "\"drill\", \"ecmp\", \"spray\"");
    CHECK(r.Names() == std::vector<std::string>{"drill", "ecmp", "spray"});
}

TEST_CASE("Registry aborts when a name is registered twice", "[unit][registry]")
{
    // NS_FATAL_ERROR ends the process: register the duplicate in a child.
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0)
    {
        // Keep the expected message, and Catch's report of the abort it handles in this
        // child, out of the test log: the parent checks how the child ended.
        std::signal(SIGABRT, SIG_DFL);
        ::close(1);
        ::close(2);
        Registry<ToyInfo> r("toys");
        r.Register({"ecmp", "ns3::Ecmp"});
        r.Register({"ecmp", "ns3::OtherEcmp"});
        ::_exit(0); // not reached when the rule holds
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGABRT);
}

TEST_CASE("the congestion controls are registered with what they need", "[unit][registry][cc]")
{
    using I = CongestionControlInfo;
    CHECK(CongestionControlNames() == std::vector<std::string>{"dcqcn", "dctcp", "hpcc", "ib-cc",
                                                               "none", "nscc", "swift", "timely"});
    auto needs = [](const std::string& name) { return FindCongestionControl(name)->needs; };
    CHECK(needs("none") == I::NEEDS_NOTHING);
    CHECK(needs("dcqcn") == I::NEEDS_ECN);
    CHECK(needs("timely") == I::NEEDS_NOTHING);
    CHECK(needs("hpcc") == (I::USES_INT | I::NEEDS_BASE_RTT));
    CHECK(needs("swift") == I::NEEDS_BASE_RTT);
    CHECK(needs("dctcp") == (I::NEEDS_ECN | I::NEEDS_BASE_RTT));
    CHECK(needs("nscc") == (I::NEEDS_ECN | I::NEEDS_BASE_RTT));
    CHECK(needs("ib-cc") == (I::NEEDS_ECN | I::NEEDS_BASE_RTT));
    CHECK(FindCongestionControl("ib-cc")->fabric == "infiniband");
    CHECK(FindCongestionControl("nope") == nullptr);
    for (const auto& cc : CongestionControls())
    {
        INFO(cc.name);
        CHECK_FALSE(cc.source.empty());
        CHECK_FALSE(cc.description.empty());
        TypeId tid;
        REQUIRE(TypeId::LookupByNameFailSafe(cc.typeId, &tid));
        REQUIRE(tid.IsChildOf(RdmaCongestionControl::GetTypeId()));
        // The registration and the model agree: its name, whether its packets carry INT.
        Ptr<RdmaCongestionControl> model = ObjectFactory(cc.typeId).Create<RdmaCongestionControl>();
        CHECK(std::string(model->Name()) == cc.name);
        CHECK(model->UsesInt() == cc.Needs(I::USES_INT));
    }
}

} // namespace TUSK_TEST_FILE
