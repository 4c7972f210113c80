CREATE TABLE authors (
  author_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  country TEXT,
  birth_year INTEGER
);
CREATE TABLE books (
  book_id INTEGER PRIMARY KEY,
  title TEXT NOT NULL,
  author_id INTEGER NOT NULL REFERENCES authors(author_id),
  genre TEXT,
  price REAL,
  pages INTEGER,
  published TEXT
);
CREATE TABLE members (
  member_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  city TEXT,
  age INTEGER,
  joined TEXT
);
CREATE TABLE loans (
  loan_id INTEGER PRIMARY KEY,
  book_id INTEGER NOT NULL REFERENCES books(book_id),
  member_id INTEGER NOT NULL REFERENCES members(member_id),
  loan_date TEXT NOT NULL,
  return_date TEXT,
  fee REAL
);
INSERT INTO authors VALUES (1, 'Mara Quillfeather', 'Norway', 1961);
INSERT INTO authors VALUES (2, 'Tobias Renwick', 'United Kingdom', 1948);
INSERT INTO authors VALUES (3, 'Ilse Varga', 'Hungary', 1975);
INSERT INTO authors VALUES (4, 'Dario Castellan', 'Italy', 1983);
INSERT INTO authors VALUES (5, 'Yuki Hanabusa', 'Japan', 1970);
INSERT INTO authors VALUES (6, 'Odile Marchetti', 'France', NULL);
INSERT INTO authors VALUES (7, 'Samuel Okonkwo-Reyes', 'Nigeria', 1990);
INSERT INTO authors VALUES (8, 'Petra Lindqvist', 'Norway', 1955);
INSERT INTO authors VALUES (9, 'Hector Villanueva', 'Chile', 1966);
INSERT INTO books VALUES (1, 'The Salt Orchard', 1, 'Fiction', 18.5, 320, '2004-03-12');
INSERT INTO books VALUES (2, 'Winter Ledger', 1, 'Mystery', 12.0, 250, '2011-10-01');
INSERT INTO books VALUES (3, 'A Map of Small Rivers', 2, 'Travel', 22.0, 410, '1999-06-20');
INSERT INTO books VALUES (4, 'Copper Bells', 3, 'Fiction', 15.75, 198, '2015-02-14');
INSERT INTO books VALUES (5, 'The Quiet Engine', 4, 'Science', 30.0, 512, '2019-09-09');
INSERT INTO books VALUES (6, 'Moth Season', 3, 'Poetry', 9.99, 96, '2018-04-30');
INSERT INTO books VALUES (7, 'Harbor of Glass', 5, 'Fiction', 18.5, 288, '2008-11-11');
INSERT INTO books VALUES (8, 'Counting Stones', 4, 'Science', 27.25, NULL, '2021-01-05');
INSERT INTO books VALUES (9, 'The Lantern Clerk', 2, 'Mystery', 12.0, 276, '1995-08-17');
INSERT INTO books VALUES (10, 'Bread and Thunder', 7, 'Fiction', NULL, 340, '2022-05-02');
INSERT INTO books VALUES (11, 'Notes on Fog', 6, 'Poetry', 11.5, 120, '2001-12-24');
INSERT INTO books VALUES (12, 'Northern Arithmetic', 8, 'Science', 24.0, 366, NULL);
INSERT INTO members VALUES (1, 'Anna Brook', 'Springfield', 34, '2019-02-11');
INSERT INTO members VALUES (2, 'Liam Ortega', 'Riverton', 27, '2020-07-03');
INSERT INTO members VALUES (3, 'Chloe Nakamura', 'Springfield', 45, '2018-05-22');
INSERT INTO members VALUES (4, 'Felix Adeyemi', 'Lakeside', 19, '2022-09-15');
INSERT INTO members VALUES (5, 'Greta Holm', 'Riverton', 62, '2015-01-30');
INSERT INTO members VALUES (6, 'Omar Haddad', 'Springfield', 30, '2021-11-08');
INSERT INTO members VALUES (7, 'Rosa Delgado', NULL, 51, '2017-03-19');
INSERT INTO members VALUES (8, 'Ivan Petrov', 'Lakeside', 30, '2023-01-02');
INSERT INTO members VALUES (9, 'Nina Sorensen', 'Riverton', 23, '2022-04-27');
INSERT INTO members VALUES (10, 'Paul Mbeki', 'Springfield', 38, NULL);
INSERT INTO loans VALUES (1, 1, 1, '2023-01-05', '2023-01-19', 0.0);
INSERT INTO loans VALUES (2, 3, 1, '2023-02-10', '2023-03-01', 1.5);
INSERT INTO loans VALUES (3, 5, 2, '2023-02-14', NULL, 0.0);
INSERT INTO loans VALUES (4, 1, 3, '2023-03-01', '2023-03-15', 0.0);
INSERT INTO loans VALUES (5, 7, 3, '2023-03-20', '2023-04-25', 3.0);
INSERT INTO loans VALUES (6, 2, 5, '2023-04-02', '2023-04-16', 0.0);
INSERT INTO loans VALUES (7, 9, 5, '2023-04-18', NULL, 0.0);
INSERT INTO loans VALUES (8, 4, 6, '2023-05-05', '2023-05-19', 0.0);
INSERT INTO loans VALUES (9, 1, 6, '2023-06-01', '2023-06-30', 2.25);
INSERT INTO loans VALUES (10, 8, 8, '2023-06-12', '2023-06-26', 0.0);
INSERT INTO loans VALUES (11, 11, 9, '2023-07-07', NULL, 0.0);
INSERT INTO loans VALUES (12, 5, 1, '2023-07-15', '2023-08-20', 4.5);
INSERT INTO loans VALUES (13, 10, 2, '2023-08-01', '2023-08-14', 0.0);
INSERT INTO loans VALUES (14, 7, 5, '2023-08-09', '2023-08-23', NULL);
