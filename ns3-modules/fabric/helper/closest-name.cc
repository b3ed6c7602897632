#include "closest-name.h"

#include <algorithm>
#include <limits>

namespace ns3
{

namespace
{

char
Fold(char c, LetterCase letterCase)
{
    return letterCase == LetterCase::INSENSITIVE && c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

} // namespace

size_t
EditDistance(const std::string& a, const std::string& b, LetterCase letterCase)
{
    std::vector<size_t> prev(b.size() + 1);
    std::vector<size_t> cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
    {
        prev[j] = j;
    }
    for (size_t i = 1; i <= a.size(); ++i)
    {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
        {
            const bool same = Fold(a[i - 1], letterCase) == Fold(b[j - 1], letterCase);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::string
ClosestName(const std::string& word,
            const std::vector<std::string>& candidates,
            LetterCase letterCase)
{
    std::string best;
    size_t bestDistance = std::numeric_limits<size_t>::max();
    for (const auto& c : candidates)
    {
        const size_t d = EditDistance(word, c, letterCase);
        if (d < bestDistance)
        {
            bestDistance = d;
            best = c;
        }
    }
    return best;
}

std::string
CloseName(const std::string& word,
          const std::vector<std::string>& candidates,
          LetterCase letterCase)
{
    const std::string best = ClosestName(word, candidates, letterCase);
    const size_t limit = word.size() <= 2 ? 1 : word.size() <= 5 ? 2 : word.size() / 3;
    return !best.empty() && EditDistance(word, best, letterCase) <= limit ? best : "";
}

} // namespace ns3
