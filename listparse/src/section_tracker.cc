#include "section_tracker.h"

namespace ppe::listparse {

void SectionTracker::switchTo(SectionRef to)
{
    m_previous = m_current;
    m_current = std::move(to);
}

void SectionTracker::setSubsection(int subsection) { switchTo(SectionRef { m_current.name, subsection }); }

void SectionTracker::push(SectionRef to)
{
    m_stack.emplace_back(m_current, m_previous);
    switchTo(std::move(to));
}

void SectionTracker::pop()
{
    if (m_stack.empty())
        return;
    m_current = std::move(m_stack.back().first);
    m_previous = std::move(m_stack.back().second);
    m_stack.pop_back();
}

void SectionTracker::renameCurrent(std::string name) { m_current.name = std::move(name); }

void SectionTracker::previous()
{
    if (m_previous)
        std::swap(m_current, *m_previous);
}

} // namespace ppe::listparse
