/*
 * tusk: PagedArray, an array indexed by a global id whose storage exists only for the ids in
 * use: pages of kPage entries are allocated on first write and freed once every entry of the
 * page has been released. The executor's per-transfer and per-trigger state lives in these, so
 * that a job built iteration by iteration holds the state of its live iterations only.
 */
#ifndef TUSK_PAGED_ARRAY_H
#define TUSK_PAGED_ARRAY_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ns3
{

template <class T, size_t kPage = 1024>
class PagedArray
{
  public:
    /** \brief Logical size n, every entry `fill`; nothing allocated. */
    void assign(size_t n, const T& fill = T())
    {
        m_size = n;
        m_fill = fill;
        const size_t pages = (n + kPage - 1) / kPage;
        m_pages.clear();
        m_pages.resize(pages);
        m_released.assign(pages, 0);
        if (pages > 0 && n % kPage != 0)
        {
            m_released.back() = static_cast<uint32_t>(kPage - n % kPage); // past the end
        }
    }

    size_t size() const { return m_size; }

    /** Entry i, its page allocated (filled) if it was not. */
    T& operator[](size_t i)
    {
        auto& p = m_pages[i / kPage];
        if (!p)
        {
            p = std::make_unique<T[]>(kPage);
            std::fill(p.get(), p.get() + kPage, m_fill);
            ++m_allocated;
        }
        return p[i % kPage];
    }

    /** Entry i when its page is allocated, else nullptr (nothing allocated). */
    T* Find(size_t i)
    {
        auto& p = m_pages[i / kPage];
        return p ? &p[i % kPage] : nullptr;
    }

    /** Entry i, or the fill value when its page is not allocated (never written or freed). */
    const T& operator[](size_t i) const
    {
        const auto& p = m_pages[i / kPage];
        return p ? p[i % kPage] : m_fill;
    }

    /** \brief Release entries [first, last), each once: a page whose entries are all released
     *  is freed (its entries read as the fill value from then on). */
    void Release(size_t first, size_t last)
    {
        last = std::min(last, m_size);
        while (first < last)
        {
            const size_t page = first / kPage;
            const size_t end = std::min(last, (page + 1) * kPage);
            m_released[page] += static_cast<uint32_t>(end - first);
            if (m_released[page] >= kPage && m_pages[page])
            {
                m_pages[page].reset();
                --m_allocated;
            }
            first = end;
        }
    }

    /** Pages allocated now. */
    size_t AllocatedPages() const { return m_allocated; }

  private:
    std::vector<std::unique_ptr<T[]>> m_pages;
    std::vector<uint32_t> m_released; //!< per page, entries released (and past the end)
    size_t m_size = 0;
    size_t m_allocated = 0;
    T m_fill{};
};

} // namespace ns3

#endif
