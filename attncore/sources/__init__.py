"""What the four source texts print and do, as data and faithful reproductions: the blog's
worked example, Bernhard's panels and his R code's refill layout, Chuang's beta search."""
