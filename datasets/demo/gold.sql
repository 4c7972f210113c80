SELECT count(*) FROM books	library
SELECT title FROM books WHERE genre = 'Fiction' AND price > 15	library
SELECT name FROM members WHERE city = 'Riverton' OR age >= 50	library
SELECT name, country FROM authors WHERE name LIKE '%an%'	library
SELECT T1.title, T2.name FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id WHERE T1.genre = 'Science'	library
SELECT DISTINCT m.name FROM members AS m JOIN loans AS l ON m.member_id = l.member_id JOIN books AS b ON l.book_id = b.book_id WHERE b.genre = 'Fiction'	library
SELECT genre, count(*) FROM books GROUP BY genre HAVING count(*) >= 3	library
SELECT title, price FROM books ORDER BY price DESC LIMIT 3	library
SELECT name FROM authors WHERE author_id NOT IN (SELECT author_id FROM books)	library
SELECT title FROM books WHERE book_id IN (SELECT book_id FROM loans WHERE return_date IS NULL)	library
SELECT count(*) FROM students WHERE year = 1	school
SELECT avg(grade) FROM enrollments WHERE course_id = 101	school
SELECT department, max(salary), min(salary) FROM teachers GROUP BY department	school
SELECT name, birth_date FROM students WHERE year = 1 ORDER BY birth_date	school
SELECT c.title, count(*) FROM courses AS c JOIN enrollments AS e ON c.course_id = e.course_id GROUP BY c.course_id HAVING count(*) >= 3	school
SELECT name FROM students WHERE city = 'Northfield' INTERSECT SELECT s.name FROM students AS s JOIN enrollments AS e ON s.student_id = e.student_id WHERE e.grade > 90	school
SELECT name FROM teachers EXCEPT SELECT t.name FROM teachers AS t JOIN courses AS c ON t.teacher_id = c.teacher_id	school
SELECT name FROM students WHERE city = 'Eastport' UNION SELECT name FROM students WHERE year = 4	school
SELECT title FROM courses WHERE credits >= 5	school
SELECT t.name, sum(c.credits) FROM teachers AS t JOIN courses AS c ON t.teacher_id = c.teacher_id GROUP BY t.teacher_id HAVING sum(c.credits) > 5	school
