#include "shapes.h"

double Square::area() const
{
    return m_side * m_side;
}

double Circle::area() const
{
    return 3.14159265358979 * m_radius * m_radius;
}

std::vector<std::unique_ptr<Shape>> makeShapes(int count)
{
    std::vector<std::unique_ptr<Shape>> shapes;
    for (int i = 0; i < count; ++i) {
        if (i % 2)
            shapes.push_back(std::make_unique<Circle>(i));
        else
            shapes.push_back(std::make_unique<Square>(i));
    }
    return shapes;
}

double totalArea(const std::vector<std::unique_ptr<Shape>>& shapes)
{
    std::vector<double> areas;
    for (const auto& s : shapes)
        areas.push_back(s->scaled(1.0));
    return sumOf(areas);
}
