// shapes: classes with virtual, inline and template members, so the C++ maps show COMDAT
// sections (.text._ZN...) that several objects define and the linker keeps once.
#pragma once

#include <memory>
#include <vector>

class Shape {
public:
    virtual ~Shape() = default;
    virtual double area() const = 0;
    double scaled(double k) const { return k * area(); } // inline
};

class Square : public Shape {
public:
    explicit Square(double side)
        : m_side(side)
    {
    }
    double area() const override;

private:
    double m_side;
};

class Circle : public Shape {
public:
    explicit Circle(double radius)
        : m_radius(radius)
    {
    }
    double area() const override;

private:
    double m_radius;
};

template <class T>
__attribute__((noinline)) T sumOf(const std::vector<T>& values)
{
    T total {};
    for (const T& v : values)
        total += v;
    return total;
}

std::vector<std::unique_ptr<Shape>> makeShapes(int count);
double totalArea(const std::vector<std::unique_ptr<Shape>>& shapes);
