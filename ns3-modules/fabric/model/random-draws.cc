#include "random-draws.h"

namespace ns3
{

thread_local uint64_t RandomDraws::s_count = 0;

} // namespace ns3
