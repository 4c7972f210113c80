CREATE TABLE teachers (
  teacher_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  department TEXT NOT NULL,
  salary REAL,
  hire_date TEXT
);
CREATE TABLE courses (
  course_id INTEGER PRIMARY KEY,
  title TEXT NOT NULL,
  teacher_id INTEGER REFERENCES teachers(teacher_id),
  credits INTEGER NOT NULL,
  room TEXT
);
CREATE TABLE students (
  student_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  year INTEGER NOT NULL,
  city TEXT,
  birth_date TEXT
);
CREATE TABLE enrollments (
  student_id INTEGER NOT NULL REFERENCES students(student_id),
  course_id INTEGER NOT NULL REFERENCES courses(course_id),
  semester TEXT NOT NULL,
  grade REAL,
  PRIMARY KEY (student_id, course_id)
);
INSERT INTO teachers VALUES (1, 'Helen Marsh', 'Mathematics', 58000.0, '2010-08-15');
INSERT INTO teachers VALUES (2, 'Victor Lang', 'Physics', 61500.0, '2008-01-10');
INSERT INTO teachers VALUES (3, 'Amira Saleh', 'Literature', 52000.0, '2015-09-01');
INSERT INTO teachers VALUES (4, 'George Tamm', 'Mathematics', 49500.0, '2019-08-20');
INSERT INTO teachers VALUES (5, 'Lucia Ferreira', 'History', 52000.0, '2012-02-01');
INSERT INTO teachers VALUES (6, 'Kenji Morita', 'Computer Science', 67000.0, '2017-07-07');
INSERT INTO teachers VALUES (7, 'Ruth Abernathy', 'Physics', NULL, '2023-01-09');
INSERT INTO courses VALUES (101, 'Calculus I', 1, 4, 'A12');
INSERT INTO courses VALUES (102, 'Linear Algebra', 4, 3, 'A14');
INSERT INTO courses VALUES (103, 'Mechanics', 2, 4, 'B01');
INSERT INTO courses VALUES (104, 'Modern Poetry', 3, 2, 'C07');
INSERT INTO courses VALUES (105, 'World History', 5, 3, 'C03');
INSERT INTO courses VALUES (106, 'Intro to Programming', 6, 4, 'D20');
INSERT INTO courses VALUES (107, 'Databases', 6, 3, 'D20');
INSERT INTO courses VALUES (108, 'Statistics', 1, 3, NULL);
INSERT INTO courses VALUES (109, 'Optics', 2, 2, 'B02');
INSERT INTO students VALUES (1, 'Aisha Karimi', 1, 'Northfield', '2005-03-14');
INSERT INTO students VALUES (2, 'Ben Calloway', 2, 'Eastport', '2004-11-02');
INSERT INTO students VALUES (3, 'Carmen Ruiz', 3, 'Northfield', '2003-07-21');
INSERT INTO students VALUES (4, 'Dmitri Volkov', 1, 'Westbury', '2005-09-30');
INSERT INTO students VALUES (5, 'Elena Rossi', 4, 'Eastport', '2002-01-05');
INSERT INTO students VALUES (6, 'Farid Nasser', 2, NULL, '2004-06-18');
INSERT INTO students VALUES (7, 'Grace Liu', 3, 'Northfield', '2003-12-09');
INSERT INTO students VALUES (8, 'Hugo Brandt', 4, 'Westbury', '2002-04-27');
INSERT INTO students VALUES (9, 'Isla McKenzie', 1, 'Eastport', '2005-08-08');
INSERT INTO students VALUES (10, 'Jonas Berg', 2, 'Northfield', '2004-02-29');
INSERT INTO students VALUES (11, 'Keiko Sato', 3, 'Eastport', NULL);
INSERT INTO students VALUES (12, 'Leo Marchand', 1, 'Westbury', '2005-10-12');
INSERT INTO enrollments VALUES (1, 101, '2023-fall', 88.5);
INSERT INTO enrollments VALUES (1, 104, '2023-fall', 92.0);
INSERT INTO enrollments VALUES (2, 101, '2023-fall', 74.0);
INSERT INTO enrollments VALUES (2, 106, '2023-fall', 81.5);
INSERT INTO enrollments VALUES (3, 103, '2023-fall', 67.0);
INSERT INTO enrollments VALUES (3, 107, '2024-spring', 90.0);
INSERT INTO enrollments VALUES (4, 106, '2023-fall', NULL);
INSERT INTO enrollments VALUES (5, 105, '2023-fall', 79.0);
INSERT INTO enrollments VALUES (5, 107, '2024-spring', 95.5);
INSERT INTO enrollments VALUES (6, 102, '2024-spring', 58.0);
INSERT INTO enrollments VALUES (7, 104, '2023-fall', 92.0);
INSERT INTO enrollments VALUES (7, 108, '2024-spring', 85.0);
INSERT INTO enrollments VALUES (8, 103, '2023-fall', 71.5);
INSERT INTO enrollments VALUES (9, 101, '2024-spring', NULL);
INSERT INTO enrollments VALUES (10, 106, '2024-spring', 88.5);
