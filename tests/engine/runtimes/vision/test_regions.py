"""GranuRAG's overlap rule on regions: nested boxes of one kind keep the smaller."""

from engine.runtimes.vision.regions import FACE, OBJECT, Region, iou, keep_smaller


def region(kind: str, box: tuple[float, float, float, float], label: str = "x") -> Region:
    return Region(kind, label, box, 0.9)


def test_nested_boxes_of_one_kind_keep_the_smaller_and_the_order():
    big = region(OBJECT, (0, 0, 100, 100), "dining table")
    cup = region(OBJECT, (10, 10, 30, 30), "cup")
    apart = region(OBJECT, (200, 200, 260, 260), "dog")
    assert keep_smaller([big, apart, cup]) == [apart, cup]


def test_face_inside_a_person_is_a_second_element_unless_kinds_are_mixed():
    person = region(OBJECT, (0, 0, 100, 300), "person")
    face = region(FACE, (30, 10, 70, 60), "face")
    assert keep_smaller([person, face]) == [person, face]
    assert keep_smaller([person, face], same_kind=False) == [face]


def test_threshold_is_the_share_of_the_smaller_box_inside_the_larger():
    large = region(OBJECT, (0, 0, 100, 100))
    half_out = region(OBJECT, (80, 0, 120, 40))  # 20 of its 40 px width inside: 50 % of its area
    assert keep_smaller([large, half_out]) == [large, half_out]
    assert keep_smaller([large, half_out], threshold=0.5) == [half_out]
    assert keep_smaller([large, half_out], threshold=0.6) == [large, half_out]


def test_iou_and_area():
    a, b = (0, 0, 10, 10), (5, 0, 15, 10)
    assert iou(a, b) == 50 / 150 and iou(a, a) == 1.0 and iou(a, (20, 20, 30, 30)) == 0.0
    assert region(OBJECT, (5, 5, 3, 3)).area == 0.0
