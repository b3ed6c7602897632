/*
 * tusk: the git revision the binary was built from (`git describe --always --dirty --tags`,
 * refreshed at every build, "unknown" outside a git checkout). Echoed into every manifest.
 */
#ifndef TUSK_GIT_REVISION_H
#define TUSK_GIT_REVISION_H

namespace tusk
{
const char* GitRevision();
} // namespace tusk

#endif
