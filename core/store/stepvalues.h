#pragma once
// A trial's intermediate values, step -> value, kept sorted by step in one flat array: a trial of 20 steps is one
// allocation of 320 bytes where a std::map takes 20 tree nodes (about 1.3 KB), and the window holds every trial of
// a study (100,000 and more). The part of std::map's interface that trials use, with the same meaning.
//
// Iterators give std::pair<std::int64_t, double>; changing a step through one breaks the order (don't).

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace pitwall {

class StepValues {
public:
    using key_type = std::int64_t;
    using mapped_type = double;
    using value_type = std::pair<std::int64_t, double>;
    using iterator = std::vector<value_type>::iterator;
    using const_iterator = std::vector<value_type>::const_iterator;
    using const_reverse_iterator = std::vector<value_type>::const_reverse_iterator;
    using size_type = std::size_t;

    StepValues() = default;
    // Later pairs win over earlier ones with the same step, as repeated operator[] assignments would.
    StepValues(std::initializer_list<value_type> values) : StepValues(values.begin(), values.end()) {}
    template <typename Iterator> StepValues(Iterator first, Iterator last)
    {
        for (; first != last; ++first)
            (*this)[first->first] = first->second;
    }
    StepValues(const std::map<std::int64_t, double>& values) : StepValues(values.begin(), values.end()) {}

    iterator begin() { return m_values.begin(); }
    iterator end() { return m_values.end(); }
    const_iterator begin() const { return m_values.begin(); }
    const_iterator end() const { return m_values.end(); }
    const_reverse_iterator rbegin() const { return m_values.rbegin(); }
    const_reverse_iterator rend() const { return m_values.rend(); }
    size_type size() const { return m_values.size(); }
    bool empty() const { return m_values.empty(); }
    void clear() { m_values.clear(); }
    void reserve(size_type n) { m_values.reserve(n); }
    void shrink_to_fit() { m_values.shrink_to_fit(); }

    const_iterator lower_bound(std::int64_t step) const
    {
        return std::lower_bound(m_values.begin(), m_values.end(), step, stepBefore);
    }
    iterator lower_bound(std::int64_t step)
    {
        return std::lower_bound(m_values.begin(), m_values.end(), step, stepBefore);
    }
    const_iterator upper_bound(std::int64_t step) const
    {
        return std::upper_bound(m_values.begin(), m_values.end(), step, stepAfter);
    }
    iterator upper_bound(std::int64_t step)
    {
        return std::upper_bound(m_values.begin(), m_values.end(), step, stepAfter);
    }
    const_iterator find(std::int64_t step) const
    {
        const auto it = lower_bound(step);
        return it != m_values.end() && it->first == step ? it : m_values.end();
    }
    iterator find(std::int64_t step)
    {
        const auto it = lower_bound(step);
        return it != m_values.end() && it->first == step ? it : m_values.end();
    }
    size_type count(std::int64_t step) const { return find(step) != end() ? 1 : 0; }
    bool contains(std::int64_t step) const { return find(step) != end(); }
    double at(std::int64_t step) const
    {
        const auto it = find(step);
        if (it == end())
            throw std::out_of_range("StepValues::at: no value at step " + std::to_string(step));
        return it->second;
    }
    // Steps usually arrive in order: then this appends.
    double& operator[](std::int64_t step)
    {
        if (m_values.empty() || m_values.back().first < step)
            return m_values.emplace_back(step, 0.0).second;
        const auto it = lower_bound(step);
        if (it != m_values.end() && it->first == step)
            return it->second;
        return m_values.emplace(it, step, 0.0)->second;
    }
    iterator erase(const_iterator first, const_iterator last) { return m_values.erase(first, last); }
    iterator erase(const_iterator position) { return m_values.erase(position); }

    friend bool operator==(const StepValues& a, const StepValues& b) = default;
    friend bool operator==(const StepValues& a, const std::map<std::int64_t, double>& b)
    {
        return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const value_type& x, const auto& y) {
            return x.first == y.first && x.second == y.second;
        });
    }

private:
    static bool stepBefore(const value_type& value, std::int64_t step) { return value.first < step; }
    static bool stepAfter(std::int64_t step, const value_type& value) { return step < value.first; }

    std::vector<value_type> m_values;
};

} // namespace pitwall
